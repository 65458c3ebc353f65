/**
 * The report of an `ocp eval` run: means per split (all, tuned, held-out) and budget,
 * ours beside BM25 with their ratio, and the spread over repeated runs (render.ts prints
 * them).
 */
import type { Answer, CaseResult, MeanMetrics, SideSummary, SpreadRow, SummaryRow } from "./types.js";

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
