/**
 * One case's answers: asking the provider (through its connection) and the baseline
 * every budget, and turning what shipped into scored answers the report holds.
 */
import type { ProviderConnection } from "../host/connection.js";
import { describeError } from "../provider/errors.js";
import type { TokenCounter } from "../tokens/counter.js";
import type { ContextFrame } from "../wire/schemas.js";
import type { Bm25Baseline } from "./baseline.js";
import type { TextFile } from "./files.js";
import { covers, emptyLineMetrics, goldHunks, type Hunk, lineMetrics } from "./lines.js";
import type { EvalCase } from "./mine.js";
import { citedGold, type FrameRef, frameRefs, type Gold, parseGold, scoreAnswer } from "./score.js";
import type { Answer, ShippedFrame } from "./types.js";

/** How a reference reads in the report: `path#L3-9`, `path`, or the URI. */
function refText(refs: readonly FrameRef[]): string {
  const ref = refs.find((r) => r.path !== undefined) ?? refs[0];
  if (ref === undefined) return "(no citation)";
  const base = ref.path ?? ref.uri ?? "";
  if (ref.lines !== undefined) return `${base}#L${ref.lines[0]}-${ref.lines[1]}`;
  return ref.fragment !== undefined ? `${base}#${ref.fragment}` : base;
}

/** What an answer is scored against: the gold entries and the hunks. */
export interface Truth {
  readonly gold: readonly Gold[];
  readonly hunks: readonly Hunk[];
}

/** Scores frames given as their references, in shipped order. */
function answerOf(
  refs: readonly (readonly FrameRef[])[],
  tokens: readonly number[],
  truth: Truth,
  maxFrames: number,
  latencyMs: number,
): Answer {
  const { gold, hunks } = truth;
  const cited = citedGold(refs, gold);
  const frames: ShippedFrame[] = refs.map((r, i) => ({
    ref: refText(r),
    tokens: tokens[i] ?? 0,
    gold: (cited[i]?.size ?? 0) > 0,
    hunk: hunks.some((hunk) => r.some((ref) => covers(ref, hunk))),
  }));
  return {
    ...scoreAnswer(cited, gold.length, maxFrames),
    ...lineMetrics(
      refs.map((r, i) => ({ refs: r, tokens: tokens[i] ?? 0 })),
      gold,
      hunks,
    ),
    tokens: tokens.reduce((a, b) => a + b, 0),
    latencyMs,
    frames,
  };
}

/** An answer that never came: scored as empty, with the reason. */
export function failedAnswer(error: unknown, truth: Truth): Answer {
  return {
    recall: 0,
    hit: 0,
    mrr: 0,
    ndcg: 0,
    ...emptyLineMetrics(truth.hunks),
    tokens: 0,
    latencyMs: 0,
    frames: [],
    error: describeError(error),
  };
}

/** One case's tree, ready to be asked: its root(s), files and baseline. */
export interface Prepared {
  readonly roots: readonly string[];
  readonly root: string;
  readonly cache: string;
  readonly files: ReadonlyMap<string, TextFile>;
  readonly bm25?: Bm25Baseline;
}

/**
 * Gold entries parsed against the tree, the hunks (a mined case's, or the labelled
 * gold's line ranges), the gold's token total, and the entries no provider can cite.
 */
export function goldOf(kase: EvalCase, tree: Prepared, counter: TokenCounter) {
  const gold = kase.gold.map((entry) => parseGold(entry, tree.roots));
  const hunks = kase.hunks ?? goldHunks(gold);
  let goldTokens = 0;
  const unreachable: string[] = [];
  for (const entry of gold) {
    if (entry.path === undefined) continue;
    const file = tree.files.get(entry.path);
    if (file === undefined) {
      unreachable.push(entry.text);
      continue;
    }
    const text =
      entry.lines === undefined
        ? file.text
        : file.text
            .split("\n")
            .slice(entry.lines[0] - 1, entry.lines[1])
            .join("\n");
    goldTokens += counter.count(text);
  }
  return { gold, hunks, goldTokens, unreachable };
}

/** Asks an open connection one case under every budget. */
export async function askAll(
  connection: ProviderConnection | Error,
  kase: EvalCase,
  truth: Truth,
  tree: Prepared,
  options: { budgets: readonly number[]; maxFrames: number; timeoutMs: number },
): Promise<Answer[]> {
  const answers: Answer[] = [];
  for (const budget of options.budgets) {
    if (connection instanceof Error) {
      answers.push(failedAnswer(connection, truth));
      continue;
    }
    const started = performance.now();
    try {
      const result = await connection.query(
        { goal: kase.goal, max_tokens: budget, max_frames: options.maxFrames },
        { timeoutMs: options.timeoutMs },
      );
      const latencyMs = performance.now() - started;
      const frames: ContextFrame[] = result.frames;
      answers.push(
        answerOf(
          frames.map((frame) => frameRefs(frame, tree.roots)),
          frames.map((frame) => frame.token_cost),
          truth,
          options.maxFrames,
          latencyMs,
        ),
      );
    } catch (error) {
      answers.push(failedAnswer(error, truth));
    }
  }
  return answers;
}

/** The baseline's answers to one case under every budget. */
export function baselineAll(
  bm25: Bm25Baseline,
  kase: EvalCase,
  truth: Truth,
  budgets: readonly number[],
  maxFrames: number,
  counter: TokenCounter,
): Answer[] {
  return budgets.map((budget) => {
    const started = performance.now();
    const shipped = bm25.answer(kase.goal, budget, maxFrames, counter);
    const latencyMs = performance.now() - started;
    return answerOf(
      shipped.map((w) => [{ path: w.path, lines: [w.start, w.end] as const }]),
      shipped.map((w) => w.tokenCost),
      truth,
      maxFrames,
      latencyMs,
    );
  });
}
