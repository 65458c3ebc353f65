/**
 * The report of an `ocp eval` run: means per split (all, tuned, held-out) and budget,
 * ours beside BM25 with their ratio, the spread over repeated runs, and the table
 * `ocp eval` prints.
 */
import type { Metrics } from "./score.js";
import type { Answer, CaseResult, EvalReport, SideSummary, SpreadRow, SummaryRow } from "./types.js";

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

/** The mean of several answers' metrics, tokens and latency (one case, repeated runs). */
export function meanMetrics(answers: readonly Answer[]): Metrics & { tokens: number; latencyMs: number } {
  return {
    recall: mean(answers.map((a) => a.recall)),
    hit: mean(answers.map((a) => a.hit)),
    mrr: mean(answers.map((a) => a.mrr)),
    ndcg: mean(answers.map((a) => a.ndcg)),
    tokens: mean(answers.map((a) => a.tokens)),
    latencyMs: mean(answers.map((a) => a.latencyMs)),
  };
}

function side(values: readonly (Metrics & { tokens: number; latencyMs: number })[]): SideSummary {
  return {
    recall: mean(values.map((v) => v.recall)),
    hit: mean(values.map((v) => v.hit)),
    mrr: mean(values.map((v) => v.mrr)),
    ndcg: mean(values.map((v) => v.ndcg)),
    tokens: mean(values.map((v) => v.tokens)),
    latencyMs: median(values.map((v) => v.latencyMs)),
  };
}

const ratio = (ours: number, bm25: number) => (bm25 === 0 ? null : ours / bm25);

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

const f2 = (value: number) => value.toFixed(2);
const pair = (ours: number, bm25: number | undefined) => (bm25 === undefined ? f2(ours) : `${f2(ours)} / ${f2(bm25)}`);
const times = (value: number | null | undefined) =>
  value === null || value === undefined ? "–" : `${value.toFixed(2)}×`;

/** Lays out rows as a Markdown table (pipes, padded columns), readable in a terminal and pasteable. */
export function markdownTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? "").length)));
  const line = (cells: readonly string[]) =>
    `| ${cells.map((cell, i) => cell.padEnd(widths[i] as number)).join(" | ")} |`;
  return [line(header), `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`, ...rows.map(line)].join("\n");
}

/** The summary table `ocp eval` prints: one row per split and budget, "ours / BM25" in each metric. */
export function renderReport(report: EvalReport): string {
  const bm25 = report.summary.some((row) => row.bm25 !== undefined);
  const header = [
    "split",
    "budget",
    "cases",
    bm25 ? "recall ours / bm25" : "recall",
    ...(bm25 ? ["× bm25"] : []),
    bm25 ? "hit ours / bm25" : "hit",
    bm25 ? "MRR ours / bm25" : "MRR",
    ...(bm25 ? ["× bm25"] : []),
    bm25 ? "nDCG ours / bm25" : "nDCG",
    "tokens ours",
    "ms p50",
    "gold > budget",
    "errors",
  ];
  const rows = report.summary.map((row) =>
    row.cases === 0
      ? [row.split, String(row.budget), "0", ...header.slice(3).map(() => "–")]
      : [
          row.split,
          String(row.budget),
          String(row.cases),
          pair(row.ours.recall, row.bm25?.recall),
          ...(bm25 ? [times(row.ratio?.recall)] : []),
          pair(row.ours.hit, row.bm25?.hit),
          pair(row.ours.mrr, row.bm25?.mrr),
          ...(bm25 ? [times(row.ratio?.mrr)] : []),
          pair(row.ours.ndcg, row.bm25?.ndcg),
          String(Math.round(row.ours.tokens)),
          row.ours.latencyMs.toFixed(0),
          String(row.goldOverBudget),
          String(row.errors),
        ],
  );
  const source =
    report.source.kind === "git"
      ? `${report.source.repo} at ${report.source.head.slice(0, 12)} (${report.source.mining.scanned} commits looked at, ${report.source.mining.qualifying} qualifying)`
      : `${report.source.root}${report.source.file === undefined ? "" : ` with ${report.source.file}`}`;
  const heldOut = report.cases.filter((c) => c.heldOut).length;
  const lines = [
    `ocp eval: ${report.provider.name ?? report.provider.command} ${report.provider.version ?? ""} over ${source}`.trimEnd(),
    `${report.cases.length} cases (${report.cases.length - heldOut} tuned, ${heldOut} held out), max_frames ${report.maxFrames}, ${report.tokenizer}, ${report.runs} run(s), ${(report.elapsedMs / 1000).toFixed(1)} s`,
    "",
    markdownTable(header, rows),
  ];
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
