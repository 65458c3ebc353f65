/**
 * Cutting a candidate to a prefix of whole lines that fits a budget, and the memo of
 * cuts a provider keeps across queries.
 */
import { GenerationalCache } from "../cache/generational.js";
import type { TokenCounter } from "../tokens/counter.js";
import { lineEnds } from "./lines.js";

/**
 * A proper prefix of whole lines of `content` whose exact cost is at most `budget` and
 * to which the next line cannot be added, or undefined if not even the first line fits.
 * Found by binary search: token counts almost always grow with each line, and where
 * BPE merges make them shrink the result is still within budget, if not the longest.
 * For content that does not fit whole.
 */
export function cutToFit(
  content: string,
  budget: number,
  counter: TokenCounter,
  cuts: CutMemo = new CutMemo(),
): Piece | undefined {
  const { byContent } = cuts;
  let byBudget = byContent.get(content);
  if (byBudget === undefined) {
    byBudget = new Map();
    byContent.set(content, byBudget);
  }
  let piece = byBudget.get(budget);
  if (piece === undefined) {
    piece = searchCut(content, budget, counter) ?? null;
    if (byBudget.size < 64) byBudget.set(budget, piece);
  }
  return piece ?? undefined;
}

/** A cut: the kept text, its exact cost and how many lines it keeps. */
type Piece = { content: string; tokenCost: number; keptLines: number };

/**
 * Cuts already found, by content and budget, for one counter: counting prefixes hashes
 * a fresh string each time, so a repeated query's cut is worth keeping. Pass one with
 * the same counter every time; bounded, about 256 contents.
 */
export class CutMemo {
  /** Content → budget → the cut (null: not even the first line fits). */
  readonly byContent = new GenerationalCache<string, Map<number, Piece | null>>(256);
}

function searchCut(content: string, budget: number, counter: TokenCounter): Piece | undefined {
  const ends = lineEnds(content);
  // Prefixes whose upper bound fits surely fit: start the search above them without
  // counting. Upper bounds are subadditive, so summing them per line stays a bound.
  let low = 0; // lines known to fit
  let high = ends.length - 1; // called because the whole text does not fit
  let bound = 0;
  while (low < high) {
    bound += counter.upperBound(content.slice(low === 0 ? 0 : (ends[low - 1] as number), ends[low] as number));
    if (bound > budget) break;
    low++;
  }
  let best: Piece | undefined;
  if (low > 0) {
    const text = content.slice(0, ends[low - 1] as number);
    best = { content: text, tokenCost: counter.count(text), keptLines: low };
  }
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    const text = content.slice(0, ends[mid - 1] as number);
    const cost = counter.count(text);
    if (cost <= budget) {
      best = { content: text, tokenCost: cost, keptLines: mid };
      low = mid;
    } else {
      high = mid - 1;
    }
  }
  return best;
}
