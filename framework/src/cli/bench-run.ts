/**
 * `ocp bench`'s measurements: a provider run in-process on a list of goals, several
 * rounds, each query's time split into search, exact token counting, packing and
 * frame building; the token count cache's hit rate; tokens shipped against the
 * budget; and, on the frames the goals find under a wide budget, how far the usual
 * estimates and the other encoding are from the exact count — and what packing by
 * them would have done to the budget.
 */
import { DEFAULT_GOALS } from "../conformance/checks/shared/main-session.js";
import type { Provider, QueryTrace } from "../provider/provider.js";
import { createTokenCounter, type TokenCounter, type TokenizerName } from "../tokens/counter.js";
import type { ContextFrame, ContextQuery } from "../wire/schemas.js";
import {
  bytesOver4,
  type Estimate,
  type EstimatedFrame,
  type EstimateError,
  estimateError,
  type OverPacking,
  overPacking,
  wordsTimes13,
} from "./bench-estimates.js";
import { runTokenizerBench, type TokenizersReport } from "./bench-tokenizers.js";

/** Options of {@link runBench}. */
export interface BenchOptions {
  /** The goals to ask; when absent they are drawn from the provider's own frames (see {@link drawGoals}). */
  goals?: readonly string[];
  /** Goals to start drawing from (default: the conformance suite's generic probe goals). */
  seeds?: readonly string[];
  /** Each query's `max_tokens`. */
  budget: number;
  /** Each query's `max_frames`. */
  maxFrames: number;
  /** How many times every goal is asked. */
  rounds: number;
  /** Also measure these tokenizers (`--tokenizers`): the frames' cost in each, estimators against each, cross budgets. */
  tokenizers?: readonly TokenizerName[];
}

/** Summary statistics of some timings, in milliseconds. */
export interface Timing {
  readonly median: number;
  readonly p95: number;
  readonly mean: number;
}

/** An estimate's distance from the exact count, and what packing by it would have done. */
export interface EstimateReport extends EstimateError {
  /** `bytes/4`, `words×1.3`, or an encoding's name. */
  readonly name: string;
  readonly overPacking: OverPacking;
}

/** What `ocp bench` found. */
export interface BenchReport {
  readonly provider: { readonly name: string; readonly version: string; readonly tokenizer: TokenizerName };
  readonly goals: readonly string[];
  /** True when the goals were drawn from the provider's frames rather than given. */
  readonly drawn: boolean;
  readonly rounds: number;
  readonly budget: number;
  readonly maxFrames: number;
  /** Plugin setups, before the first query. */
  readonly setupMs: number;
  /**
   * Loading the tokenizer's tables (and its first count), done before the first timed
   * query so no query's counting time holds it: the first load, or about 0 when the
   * provider had loaded them already (it does once idle 250 ms after starting, so during
   * a long setup).
   */
  readonly tokenizerLoadMs: number;
  readonly queries: number;
  /** Per query: the whole, and its parts. `other` is the rest: reading the query, the fan-out's bookkeeping. */
  readonly time: {
    readonly total: Timing;
    readonly search: Timing;
    readonly counting: Timing;
    readonly packing: Timing;
    readonly frames: Timing;
  };
  /**
   * The token count cache over every round, and over the first and the later rounds
   * apart. It is emptied before the first round (drawing goals asks the provider, which
   * fills it): the first round is a cold cache, the later ones what a repeated goal finds.
   */
  readonly cache: {
    readonly hits: number;
    readonly misses: number;
    readonly firstRound: number;
    readonly later: number;
  };
  /** Σ token_cost per query against the budget. */
  readonly shipped: {
    readonly mean: number;
    readonly min: number;
    readonly max: number;
    readonly truncated: number;
    /** Truncated answers that shipped `max_frames` frames: the frame limit, not the budget, stopped them. */
    readonly truncatedAtMaxFrames: number;
    readonly empty: number;
  };
  /** On the distinct frames the goals found under a wide budget. */
  readonly estimates: { readonly frames: number; readonly of: readonly EstimateReport[] };
  /** With `--tokenizers`: each family's view of the same frames and answers. */
  readonly tokenizers?: TokenizersReport;
}

const sum = (values: readonly number[]) => values.reduce((a, b) => a + b, 0);

/** Median, 95th percentile and mean of `values`. */
export function timing(values: readonly number[]): Timing {
  if (values.length === 0) return { median: 0, p95: 0, mean: 0 };
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
  return { median: at(0.5), p95: at(0.95), mean: sum(values) / values.length };
}

const query = (goal: string, maxTokens: number, maxFrames: number): ContextQuery => ({
  goal,
  kinds: [],
  anchors: [],
  max_tokens: maxTokens,
  max_frames: maxFrames,
});

/** A budget wide enough that the goals' frames ship whole, for comparing estimates. */
const wideBudget = (budget: number) => Math.min(4_294_967_295, Math.max(budget * 8, 32_768));
const WIDE_FRAMES = 64;

/**
 * Goals from the provider's own frames: each seed that finds frames, then the titles
 * of the frames found, until there are `limit`. Empty when no seed finds anything.
 */
export async function drawGoals(provider: Provider, seeds: readonly string[], limit = 16): Promise<string[]> {
  const goals: string[] = [];
  const titles: string[] = [];
  for (const seed of seeds) {
    const { frames } = await provider.query(query(seed, 32_768, 32));
    if (frames.length === 0) continue;
    goals.push(seed);
    for (const frame of frames) titles.push(frame.title);
  }
  for (const title of titles) {
    if (goals.length >= limit) break;
    if (!goals.includes(title)) goals.push(title);
  }
  return goals.slice(0, limit);
}

/** Wraps `counter`'s methods in place to add up the time spent in them; returns the running total's reader. */
function timeCounting(counter: TokenCounter): { readonly elapsed: () => number } {
  let spent = 0;
  for (const method of ["count", "upperBound", "surelyFits"] as const) {
    const inner = counter[method] as (...args: unknown[]) => unknown;
    (counter as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
      const started = performance.now();
      try {
        return inner.apply(counter, args);
      } finally {
        spent += performance.now() - started;
      }
    };
  }
  return { elapsed: () => spent };
}

/** The other BPE encoding a provider could count with: how far apart the two are on the same text. */
function otherEncoding(tokenizer: TokenizerName): Exclude<TokenizerName, "canonical"> {
  return tokenizer === "o200k_base" ? "cl100k_base" : "o200k_base";
}

/** Runs the benchmark on `provider` (started here; not closed). */
export async function runBench(provider: Provider, options: BenchOptions): Promise<BenchReport> {
  const setupStarted = performance.now();
  await provider.start();
  const setupMs = performance.now() - setupStarted;
  const { counter } = provider;
  // The tables' first load is a one-off cost: timed apart, not as the slowest query's counting.
  const loadStarted = performance.now();
  counter.preload();
  counter.count("ocp bench: the tokenizer's first count"); // whatever a first use builds beyond the tables
  const tokenizerLoadMs = performance.now() - loadStarted;
  const given = options.goals !== undefined && options.goals.length > 0;
  const goals = given ? [...(options.goals ?? [])] : await drawGoals(provider, options.seeds ?? DEFAULT_GOALS);
  if (goals.length === 0) throw new Error("no goal found any frame: give goals the provider can answer");

  const counting = timeCounting(counter);
  const stats = () => counter.cacheStats?.() ?? { hits: 0, misses: 0 };
  const time = { total: [] as number[], search: [] as number[], counting: [] as number[], packing: [] as number[] };
  const framesMs: number[] = [];
  const shipped: number[] = [];
  let truncated = 0;
  let truncatedAtMaxFrames = 0;
  let empty = 0;
  // Drawing the goals asked the provider, which counted their frames: start the rounds cold.
  counter.clearCache?.();
  const before = stats();
  let afterFirst = before;
  for (let round = 0; round < options.rounds; round++) {
    for (const goal of goals) {
      const trace: QueryTrace = {};
      const countedBefore = counting.elapsed();
      const started = performance.now();
      const result = await provider.query(query(goal, options.budget, options.maxFrames), { trace });
      time.total.push(performance.now() - started);
      const counted = counting.elapsed() - countedBefore;
      time.search.push(trace.searchMs ?? 0);
      time.counting.push(counted);
      time.packing.push(Math.max(0, (trace.packMs ?? 0) - counted));
      framesMs.push(trace.framesMs ?? 0);
      shipped.push(sum(result.frames.map((frame) => frame.token_cost)));
      if (result.truncated) truncated++;
      if (result.truncated && result.frames.length >= options.maxFrames) truncatedAtMaxFrames++;
      if (result.frames.length === 0) empty++;
    }
    if (round === 0) afterFirst = stats();
  }
  const after = stats();
  const rate = (hits: number, misses: number) => (hits + misses === 0 ? 0 : hits / (hits + misses));

  // The estimates, on each goal's frames under a wide budget: the candidates a packer would choose from.
  const ranked: EstimatedFrame[][] = [];
  const distinct = new Map<string, EstimatedFrame>();
  for (const goal of goals) {
    const { frames } = await provider.query(query(goal, wideBudget(options.budget), WIDE_FRAMES));
    ranked.push(frames.map((frame: ContextFrame) => ({ content: frame.content, exact: frame.token_cost })));
    for (const frame of frames) distinct.set(frame.content, { content: frame.content, exact: frame.token_cost });
  }
  const other = otherEncoding(counter.tokenizer);
  const otherCounter = createTokenCounter({ tokenizer: other, cacheSize: 0 });
  const estimates: [string, Estimate][] = [
    ["bytes/4", bytesOver4],
    ["words×1.3", wordsTimes13],
    [other, (text) => otherCounter.count(text)],
  ];
  const frames = [...distinct.values()];
  const tokenizers =
    options.tokenizers === undefined || options.tokenizers.length === 0
      ? undefined
      : await runTokenizerBench(provider, {
          tokenizers: options.tokenizers,
          goals,
          frames: frames.map((frame) => frame.content),
          budget: options.budget,
          maxFrames: options.maxFrames,
        });
  return {
    provider: { name: provider.info.name, version: provider.info.version, tokenizer: counter.tokenizer },
    goals,
    drawn: !given,
    rounds: options.rounds,
    budget: options.budget,
    maxFrames: options.maxFrames,
    setupMs,
    tokenizerLoadMs,
    queries: time.total.length,
    time: {
      total: timing(time.total),
      search: timing(time.search),
      counting: timing(time.counting),
      packing: timing(time.packing),
      frames: timing(framesMs),
    },
    cache: {
      hits: after.hits - before.hits,
      misses: after.misses - before.misses,
      firstRound: rate(afterFirst.hits - before.hits, afterFirst.misses - before.misses),
      later: rate(after.hits - afterFirst.hits, after.misses - afterFirst.misses),
    },
    shipped: {
      mean: shipped.length === 0 ? 0 : sum(shipped) / shipped.length,
      min: Math.min(...shipped),
      max: Math.max(...shipped),
      truncated,
      truncatedAtMaxFrames,
      empty,
    },
    estimates: {
      frames: frames.length,
      of: estimates.map(([name, estimate]) => ({
        name,
        ...estimateError(frames, estimate),
        overPacking: overPacking(ranked, estimate, options.budget, options.maxFrames),
      })),
    },
    ...(tokenizers !== undefined ? { tokenizers } : {}),
  };
}
