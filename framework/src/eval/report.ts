/**
 * The report of an `ocp eval` run: means per split (all, tuned, held-out) and budget,
 * ours beside BM25 with their ratio, the spread over repeated runs, and the tables
 * `ocp eval` prints.
 */
import { terminalText } from "../provider/display-text.js";
import type { Answer, CaseResult, EvalReport, MeanMetrics, SideSummary, SpreadRow, SummaryRow } from "./types.js";

/** The held-out rule in words, as the report states it. */
export const HELD_OUT_RULE =
  "held out iff the first 8 hex digits of sha256(commit id, or the goal of a labelled case) ≡ 0 (mod 3)";

const mean = (values: readonly number[]) =>
  values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length;

function median(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

const present = (values: readonly (number | null)[]) => values.filter((value): value is number => value !== null);
/** The mean of the values that are not null; null when all are (no case had hunks). */
const meanOrNull = (values: readonly (number | null)[]) => {
  const known = present(values);
  return known.length === 0 ? null : mean(known);
};

/** The mean of several answers' metrics, tokens and latency (one case, repeated runs). */
export function meanMetrics(answers: readonly Answer[]): MeanMetrics {
  return {
    recall: mean(answers.map((a) => a.recall)),
    hit: mean(answers.map((a) => a.hit)),
    mrr: mean(answers.map((a) => a.mrr)),
    ndcg: mean(answers.map((a) => a.ndcg)),
    hunkRecall: meanOrNull(answers.map((a) => a.hunkRecall)),
    acc1: mean(answers.map((a) => a.acc1)),
    goldShare: mean(answers.map((a) => a.goldShare)),
    hunkShare: mean(answers.map((a) => a.hunkShare)),
    tokens: mean(answers.map((a) => a.tokens)),
    latencyMs: mean(answers.map((a) => a.latencyMs)),
  };
}

function side(values: readonly MeanMetrics[]): SideSummary {
  return {
    recall: mean(values.map((v) => v.recall)),
    hit: mean(values.map((v) => v.hit)),
    mrr: mean(values.map((v) => v.mrr)),
    ndcg: mean(values.map((v) => v.ndcg)),
    hunkRecall: meanOrNull(values.map((v) => v.hunkRecall)),
    acc1: mean(values.map((v) => v.acc1)),
    goldShare: mean(values.map((v) => v.goldShare)),
    hunkShare: mean(values.map((v) => v.hunkShare)),
    tokens: mean(values.map((v) => v.tokens)),
    latencyMs: median(values.map((v) => v.latencyMs)),
  };
}

const ratio = (ours: number | null, bm25: number | null) =>
  ours === null || bm25 === null || bm25 === 0 ? null : ours / bm25;

/** Summary rows (split × budget) and the spread over runs. */
export function summarize(
  cases: readonly CaseResult[],
  budgets: readonly number[],
  runs: number,
): { summary: SummaryRow[]; spread: SpreadRow[] } {
  const splits = [
    ["all", cases],
    ["tuned", cases.filter((c) => !c.heldOut)],
    ["held-out", cases.filter((c) => c.heldOut)],
  ] as const;
  const summary: SummaryRow[] = [];
  for (const [split, members] of splits) {
    budgets.forEach((budget, b) => {
      const rows = members.map((c) => c.budgets[b]).filter((row) => row !== undefined);
      const ours = side(rows.map((row) => row.oursMean));
      const withBm25 = rows.filter((row) => row.bm25 !== undefined);
      const bm25 =
        withBm25.length === rows.length && rows.length > 0
          ? side(withBm25.map((row) => row.bm25 as Answer))
          : undefined;
      summary.push({
        split,
        budget,
        cases: members.length,
        hunkCases: members.filter((c) => c.hunks.length > 0).length,
        ours,
        bm25,
        ratio:
          bm25 === undefined
            ? undefined
            : {
                recall: ratio(ours.recall, bm25.recall),
                hit: ratio(ours.hit, bm25.hit),
                mrr: ratio(ours.mrr, bm25.mrr),
                ndcg: ratio(ours.ndcg, bm25.ndcg),
                hunkRecall: ratio(ours.hunkRecall, bm25.hunkRecall),
                acc1: ratio(ours.acc1, bm25.acc1),
                goldShare: ratio(ours.goldShare, bm25.goldShare),
              },
        goldOverBudget: members.filter((c) => c.goldTokens > budget).length,
        errors: rows.reduce((n, row) => n + row.ours.filter((answer) => answer.error !== undefined).length, 0),
      });
    });
  }
  const spread: SpreadRow[] = budgets.map((budget, b) => {
    const runRecall = Array.from({ length: runs }, (_, run) =>
      mean(cases.map((c) => c.budgets[b]?.ours[run]?.recall ?? 0)),
    );
    return {
      budget,
      runRecall,
      min: Math.min(...runRecall),
      max: Math.max(...runRecall),
      changedCases: cases.filter((c) => c.budgets[b]?.changed === true).length,
    };
  });
  return { summary, spread };
}

const f2 = (value: number | null) => (value === null ? "–" : value.toFixed(2));
const pair = (ours: number | null, bm25: number | null | undefined, format = f2) =>
  bm25 === undefined ? format(ours) : `${format(ours)} / ${format(bm25)}`;
const times = (value: number | null | undefined) =>
  value === null || value === undefined ? "–" : `${value.toFixed(2)}×`;

/** Lays out rows as a Markdown table (pipes, padded columns), readable in a terminal and pasteable. */
export function markdownTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? "").length)));
  const line = (cells: readonly string[]) =>
    `| ${cells.map((cell, i) => cell.padEnd(widths[i] as number)).join(" | ")} |`;
  return [line(header), `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`, ...rows.map(line)].join("\n");
}

/** One column of a summary table: a header and its cell for a row (with BM25 beside ours when there is one). */
type Column = readonly [header: string, cell: (row: SummaryRow, bm25: boolean) => string, withBm25Only?: boolean];

function table(report: EvalReport, columns: readonly Column[]): string {
  const bm25 = report.summary.some((row) => row.bm25 !== undefined);
  const shown = columns.filter(([, , only]) => bm25 || only !== true);
  const rows = report.summary.map((row) => [
    row.split,
    String(row.budget),
    ...shown.map(([, cell]) => (row.cases === 0 ? "–" : cell(row, bm25))),
  ]);
  return markdownTable(["split", "budget", ...shown.map(([header]) => header)], rows);
}

const whole = (value: number | null) => (value === null ? "–" : String(Math.round(value)));
const percent = (value: number | null) => (value === null ? "–" : `${Math.round(value * 100)}%`);

/** Files: were the right files shipped, and the right one first. */
const FILE_COLUMNS: readonly Column[] = [
  ["cases", (row) => String(row.cases)],
  ["file recall", (row) => pair(row.ours.recall, row.bm25?.recall)],
  ["×", (row) => times(row.ratio?.recall), true],
  ["acc@1", (row) => pair(row.ours.acc1, row.bm25?.acc1)],
  ["×", (row) => times(row.ratio?.acc1), true],
  ["MRR", (row) => pair(row.ours.mrr, row.bm25?.mrr)],
  ["hit", (row) => pair(row.ours.hit, row.bm25?.hit)],
  ["errors", (row) => String(row.errors)],
];

/** Lines: did the changed lines ship, and where did the tokens go. */
const LINE_COLUMNS: readonly Column[] = [
  ["hunk recall", (row) => pair(row.ours.hunkRecall, row.bm25?.hunkRecall)],
  ["×", (row) => times(row.ratio?.hunkRecall), true],
  ["in gold files", (row) => pair(row.ours.goldShare, row.bm25?.goldShare, percent)],
  ["×", (row) => times(row.ratio?.goldShare), true],
  ["tokens", (row) => pair(row.ours.tokens, row.bm25?.tokens, whole)],
  ["ms p50", (row) => row.ours.latencyMs.toFixed(0)],
  ["gold > budget", (row) => String(row.goldOverBudget)],
];

/**
 * The tables `ocp eval` prints: one row per split and budget, "ours / BM25" in each
 * metric — files (recall, acc@1, MRR, hit) and lines (hunk recall, share of tokens in
 * gold files, tokens, latency) in two tables, so neither runs wider than a terminal.
 */
export function renderReport(report: EvalReport): string {
  const bm25 = report.summary.some((row) => row.bm25 !== undefined);
  const source =
    report.source.kind === "git"
      ? `${report.source.repo} at ${report.source.head.slice(0, 12)} (${report.source.mining.scanned} commits looked at, ${report.source.mining.qualifying} qualifying)`
      : `${report.source.root}${report.source.file === undefined ? "" : ` with ${report.source.file}`}`;
  const heldOut = report.cases.filter((c) => c.heldOut).length;
  const lines = [
    terminalText(
      `ocp eval: ${report.provider.name ?? report.provider.command} ${report.provider.version ?? ""} over ${source}`.trimEnd(),
    ),
    `${report.cases.length} cases (${report.cases.length - heldOut} tuned, ${heldOut} held out), max_frames ${report.maxFrames}, ${report.tokenizer}, ${report.runs} run(s), ${(report.elapsedMs / 1000).toFixed(1)} s`,
    ...(bm25 ? ["Each cell is ours / BM25; × is ours ÷ BM25."] : []),
    "",
    "Files: the right files, and the right one first",
    table(report, FILE_COLUMNS),
    "",
    "Lines: the changed lines, and where the tokens went",
    table(report, LINE_COLUMNS),
  ];
  const all = report.summary.find((row) => row.split === "all");
  if (all !== undefined && all.hunkCases < all.cases) {
    lines.push(
      "",
      all.hunkCases === 0
        ? "No case has line-level gold (hunks or path#Lstart-end): hunk recall is –."
        : `Hunk recall is the mean over the ${all.hunkCases} of ${all.cases} cases with line-level gold (hunks or path#Lstart-end).`,
    );
  }
  if (report.runs > 1) {
    lines.push(
      "",
      markdownTable(
        ["budget", "recall per run", "min", "max", "cases whose frames changed"],
        report.spread.map((row) => [
          String(row.budget),
          row.runRecall.map(f2).join(" "),
          f2(row.min),
          f2(row.max),
          String(row.changedCases),
        ]),
      ),
    );
  }
  const unreachable = report.cases.filter((c) => c.unreachable.length > 0).length;
  if (unreachable > 0)
    lines.push("", `${unreachable} case(s) have gold no provider can cite (not a text file in the tree).`);
  return `${lines.join("\n")}\n`;
}
