/**
 * What `ocp eval` prints without `--json`: where the cases came from (and why the other
 * commits were skipped), how widely the gold is spread, and two tables — files and lines —
 * each under 100 columns.
 */
import { terminalText } from "../provider/display-text.js";
import type { GoldSpread } from "./spread.js";
import type { EvalReport, SummaryRow } from "./types.js";

const f2 = (value: number | null) => (value === null ? "–" : value.toFixed(2));
const pair = (ours: number | null, bm25: number | null | undefined, format = f2) =>
  bm25 === undefined ? format(ours) : `${format(ours)} / ${format(bm25)}`;
/** A ratio: two decimals, one from 10× up (so a column stays 5 wide). */
const times = (value: number | null | undefined) =>
  value === null || value === undefined ? "–" : `${value.toFixed(value >= 9.995 ? 1 : 2)}×`;
const plural = (n: number, noun: string) => `${n} ${noun}${n === 1 ? "" : "s"}`;
/** A share as a whole percentage, the unit in the column's header (`% used`), so a cell stays narrow. */
const percent = (value: number | null) => (value === null ? "–" : String(Math.round(value * 100)));

/** Lays out rows as a Markdown table (pipes, padded columns), readable in a terminal and pasteable. */
export function markdownTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? "").length)));
  const line = (cells: readonly string[]) =>
    `| ${cells.map((cell, i) => cell.padEnd(widths[i] as number)).join(" | ")} |`;
  return [line(header), `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`, ...rows.map(line)].join("\n");
}

/** One column of a summary table: a header and its cell for a row (with BM25 beside ours when there is one). */
type Column = readonly [header: string, cell: (row: SummaryRow) => string, withBm25Only?: boolean];

function table(report: EvalReport, columns: readonly Column[]): string {
  const bm25 = report.summary.some((row) => row.bm25 !== undefined);
  const shown = columns.filter(([, , only]) => bm25 || only !== true);
  const rows = report.summary.map((row) => [
    row.split,
    String(row.budget),
    ...shown.map(([, cell]) => (row.cases === 0 ? "–" : cell(row))),
  ]);
  return markdownTable(["split", "budget", ...shown.map(([header]) => header)], rows);
}

/**
 * Files: were the right files shipped, and the right one first. (The cases per split are
 * in the line above the tables, failed queries in a line under them: every column here
 * is a measure.)
 */
const FILE_COLUMNS: readonly Column[] = [
  ["file recall", (row) => pair(row.ours.recall, row.bm25?.recall)],
  ["×", (row) => times(row.ratio?.recall), true],
  ["acc@1", (row) => pair(row.ours.acc1, row.bm25?.acc1)],
  ["×", (row) => times(row.ratio?.acc1), true],
  ["MRR", (row) => pair(row.ours.mrr, row.bm25?.mrr)],
  ["hit", (row) => pair(row.ours.hit, row.bm25?.hit)],
];

/** Lines: did the changed lines ship, and where did the tokens go (`% used`: Σ token_cost ÷ the budget). */
const LINE_COLUMNS: readonly Column[] = [
  ["hunk recall", (row) => pair(row.ours.hunkRecall, row.bm25?.hunkRecall)],
  ["×", (row) => times(row.ratio?.hunkRecall), true],
  ["% in gold", (row) => pair(row.ours.goldShare, row.bm25?.goldShare, percent)],
  ["×", (row) => times(row.ratio?.goldShare), true],
  ["% used", (row) => pair(row.ours.tokens / row.budget, row.bm25 && row.bm25.tokens / row.budget, percent)],
  ["ms p50", (row) => row.ours.latencyMs.toFixed(0)],
  ["gold>budget", (row) => String(row.goldOverBudget)],
];

/** The source line: the repository and, for mined cases, how many commits were looked at and why each was skipped. */
function sourceLines(report: EvalReport): string[] {
  const { provider, source } = report;
  // The provider's name and version and the paths are shown, never able to drive the terminal.
  const who = `${provider.name ?? provider.command} ${provider.version ?? ""}`.trimEnd();
  if (source.kind === "labelled") {
    return [
      terminalText(`ocp eval: ${who} over ${source.root}${source.file === undefined ? "" : ` with ${source.file}`}`),
    ];
  }
  const { scanned, qualifying, skipped } = source.mining;
  const lines = [
    terminalText(`ocp eval: ${who} over ${source.repo} at ${source.head.slice(0, 12)}`),
    `${scanned} commits looked at, ${qualifying} qualifying${source.seed === undefined ? "" : ` (sampled with seed ${source.seed})`}, ${scanned - qualifying} skipped${scanned > qualifying ? ":" : ""}`,
  ];
  const reasons = Object.entries(skipped).sort(([a, m], [b, n]) => n - m || (a < b ? -1 : 1));
  const width = String(Math.max(0, ...reasons.map(([, n]) => n))).length;
  for (const [reason, count] of reasons) lines.push(`  ${String(count).padStart(width)}  ${reason}`);
  return lines;
}

/** How widely the gold is spread, what a goal-blind answer would score on it, and the caveat when it is narrow. */
export function spreadLines(spread: GoldSpread, maxFrames: number): string[] {
  const [top] = spread.top;
  if (top === undefined) return [];
  const share = Math.round((top.cases / Math.max(1, spread.cases)) * 100);
  const blind = spread.goalBlind;
  // A labelled case's gold is the user's text: shown, never able to drive the terminal.
  const lines = [
    `Gold: ${plural(spread.files, "file")} over ${plural(spread.cases, "case")}; the commonest, ${top.gold}, in ${top.cases} (${share}%).`,
    `Goal-blind answer (the ${maxFrames} commonest gold files, whatever the goal): acc@1 ${f2(blind.acc1)}, file recall ${f2(blind.recall)}.`,
  ];
  if (spread.narrow) {
    lines.push(
      "WARNING: narrow gold — ratios over BM25 (which reads only the goal) may come from knowing which",
      "files change often rather than from reading the goal; mine a longer history or another repository:",
      ...spread.reasons.map((reason) => `  - ${reason}`),
    );
  }
  return lines.map(terminalText);
}

/** Failed queries (counted as empty answers), per budget; nothing when none failed. */
function errorLines(report: EvalReport): string[] {
  const all = report.summary.filter((row) => row.split === "all");
  const failed = all.reduce((n, row) => n + row.errors, 0);
  if (failed === 0) return [];
  const asked = all.reduce((n, row) => n + row.cases * report.runs, 0);
  return [
    "",
    `${failed} of ${asked} queries failed (timeout, error reply or budget violation) and count as empty answers:`,
    `  ${all.map((row) => `${row.errors} at ${row.budget} tokens`).join(", ")} (--json has each one's error).`,
  ];
}

/**
 * The report `ocp eval` prints: the source (and the reasons commits were skipped), the
 * gold's spread, one row per split and budget with "ours / BM25" in each metric — files
 * (recall, acc@1, MRR, hit) and lines (hunk recall, share of tokens in gold files, share
 * of the budget used, latency) in two tables, each under 100 columns.
 */
export function renderReport(report: EvalReport): string {
  const bm25 = report.summary.some((row) => row.bm25 !== undefined);
  const heldOut = report.cases.filter((c) => c.heldOut).length;
  const lines = [
    ...sourceLines(report),
    `${report.cases.length} cases (${report.cases.length - heldOut} tuned, ${heldOut} held out), max_frames ${report.maxFrames}, ${report.tokenizer}, ${report.runs} run(s), ${(report.elapsedMs / 1000).toFixed(1)} s`,
    ...(bm25 ? ["Each cell is ours / BM25; × is ours ÷ BM25."] : []),
    ...(report.goldSpread === undefined ? [] : ["", ...spreadLines(report.goldSpread, report.maxFrames)]),
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
  lines.push(...errorLines(report));
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
