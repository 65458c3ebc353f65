/**
 * How far the usual token estimates are from the exact count, on a provider's own
 * frames, and what packing by them would have done to a budget. `ocp bench` reports
 * these; they are pure functions of the frames, so a test can hold them to account.
 */
import { canonicalTokenCount } from "../tokens/counter.js";

/** A frame as the estimates see it: its content, exact cost, and rank in its query. */
export interface EstimatedFrame {
  readonly content: string;
  /** The exact count under the provider's tokenizer (the frame's `token_cost`). */
  readonly exact: number;
}

/** An estimate of a text's token count. */
export type Estimate = (text: string) => number;

/** `ceil(UTF-8 bytes / 4)`: the usual "4 bytes a token" rule (also the `canonical` tokenizer). */
export const bytesOver4: Estimate = canonicalTokenCount;

/** `ceil(words × 1.3)`, words being runs of non-space: the usual "1.3 tokens a word" rule. */
export const wordsTimes13: Estimate = (text) => Math.ceil((text.match(/\S+/g)?.length ?? 0) * 1.3);

/** How an estimate compares to the exact counts of some frames. */
export interface EstimateError {
  /** Frames compared. */
  readonly frames: number;
  /** Mean of |estimate − exact| / exact, as a fraction (0.2 = 20 %). */
  readonly meanError: number;
  /** Mean of (estimate − exact) / exact: negative when it undercounts. */
  readonly bias: number;
  /** The signed relative error of largest magnitude. */
  readonly worst: number;
  /** Σ estimate / Σ exact over all the frames. */
  readonly totalRatio: number;
}

/** The relative error of `estimate` on each frame, summarised. Frames with an exact count of 0 are left out. */
export function estimateError(frames: readonly EstimatedFrame[], estimate: Estimate): EstimateError {
  let abs = 0;
  let signed = 0;
  let worst = 0;
  let estimated = 0;
  let exact = 0;
  let n = 0;
  for (const frame of frames) {
    if (frame.exact === 0) continue;
    const guess = estimate(frame.content);
    const error = (guess - frame.exact) / frame.exact;
    abs += Math.abs(error);
    signed += error;
    if (Math.abs(error) > Math.abs(worst)) worst = error;
    estimated += guess;
    exact += frame.exact;
    n++;
  }
  return {
    frames: n,
    meanError: n === 0 ? 0 : abs / n,
    bias: n === 0 ? 0 : signed / n,
    worst,
    totalRatio: exact === 0 ? 1 : estimated / exact,
  };
}

/** What packing one query's frames by an estimate would have shipped. */
export interface PackedByEstimate {
  /** Frames it would have shipped. */
  readonly frames: number;
  /** Their exact total. */
  readonly exactTokens: number;
  /** Shipped frames that took the exact total past the budget (0 when it stayed within). */
  readonly framesPastBudget: number;
}

/**
 * Packs `ranked` (best first) the simple way, by `estimate`: a frame ships whole
 * when its estimate fits what is left of `budget`, else it is skipped; at most
 * `maxFrames` ship. Then counts, with the exact costs, how far past the budget that went.
 * With the exact count as the estimate nothing ever goes past.
 */
export function packByEstimate(
  ranked: readonly EstimatedFrame[],
  estimate: Estimate,
  budget: number,
  maxFrames: number,
): PackedByEstimate {
  let left = budget;
  let frames = 0;
  let exactTokens = 0;
  let past = 0;
  for (const frame of ranked) {
    if (frames >= maxFrames) break;
    const guess = estimate(frame.content);
    if (guess > left) continue;
    left -= guess;
    frames++;
    exactTokens += frame.exact;
    if (exactTokens > budget) past++;
  }
  return { frames, exactTokens, framesPastBudget: past };
}

/** Over a set of queries: how often packing by an estimate broke the budget, and by how much. */
export interface OverPacking {
  /** Queries whose estimate-packed frames exceeded the budget. */
  readonly queriesOver: number;
  /** Frames, over all queries, that took a query past its budget. */
  readonly framesPastBudget: number;
  /** The largest exact total over the budget, in tokens (0 if none was). */
  readonly worstOvershoot: number;
}

/** {@link packByEstimate} over several queries' ranked frames. */
export function overPacking(
  queries: readonly (readonly EstimatedFrame[])[],
  estimate: Estimate,
  budget: number,
  maxFrames: number,
): OverPacking {
  let queriesOver = 0;
  let framesPastBudget = 0;
  let worstOvershoot = 0;
  for (const ranked of queries) {
    const packed = packByEstimate(ranked, estimate, budget, maxFrames);
    if (packed.exactTokens > budget) queriesOver++;
    framesPastBudget += packed.framesPastBudget;
    worstOvershoot = Math.max(worstOvershoot, packed.exactTokens - budget);
  }
  return { queriesOver, framesPastBudget, worstOvershoot };
}
