/**
 * The budget packer: which candidates ship, whole or cut, under a query's limits.
 *
 * Objective: relevance first, lexicographically. Candidates are taken best-first
 * (score descending, then id ascending, so ties and input order never change the
 * answer). Each one ships whole if it fits the tokens left; if it does not, it is
 * cut to the longest prefix of whole lines that fits. A lower-scored candidate
 * never displaces a higher-scored one, so the host always gets the best evidence
 * the budget can hold; smaller, lower-scored candidates still fill what is left.
 *
 * Cost: only content that ships is counted exactly. A candidate whose cheap upper
 * bound (its UTF-8 length) fits is counted once and shipped. One that may not fit
 * is counted at most once, and only until `maxProbes` such counts have failed or
 * the budget has been filled by a cut; after that, only candidates whose upper
 * bound fits are considered. The work therefore grows with the budget, not the pool.
 */

import { GenerationalCache } from "../cache/generational.js";
import type { TokenCounter } from "../tokens/counter.js";
import type { FrameKind } from "../wire/schemas.js";
import { Heap } from "./heap.js";
import { lineEnds } from "./lines.js";

/** What the packer needs to know of a candidate. */
export interface PackCandidate {
  /** Stable id; duplicates keep the best-scored one. */
  readonly id: string;
  /** The frame kind, checked against the query's `kinds`. */
  readonly kind: FrameKind;
  /** The text that would ship. */
  readonly content: string;
  /** Relevance in [0, 1]. */
  readonly score: number;
}

/** Options of {@link packFrames}. */
export interface PackOptions {
  /** Hard budget: Σ token_cost of the result never exceeds it. */
  maxTokens: number;
  /** At most this many frames ship. */
  maxFrames: number;
  /** When non-empty, only these kinds ship (the query's `kinds` is binding). */
  kinds?: readonly FrameKind[];
  /** The exact counter whose counts become `token_cost`. */
  counter: TokenCounter;
  /** Failed exact counts allowed before only surely-fitting candidates are considered. Default 32. */
  maxProbes?: number;
  /**
   * Cuts to reuse across calls (a {@link CutMemo}): a provider keeps one for its
   * life, since the same candidate meets the same budget whenever a host repeats a query.
   * Default: a fresh one per call.
   */
  cuts?: CutMemo;
}

/** A candidate chosen to ship, with the exact content and cost that go on the wire. */
export interface PackedFrame<C extends PackCandidate> {
  /** The candidate it came from. */
  readonly candidate: C;
  /** The shipped content: the candidate's, or a prefix of whole lines of it. */
  readonly content: string;
  /** The exact token count of `content`. */
  readonly tokenCost: number;
  /** Set when the content was cut: how many of the candidate's lines were kept. */
  readonly keptLines?: number;
}

/** The packer's answer. */
export interface PackResult<C extends PackCandidate> {
  /** Frames in shipping order: best first. */
  readonly frames: PackedFrame<C>[];
  /** Σ tokenCost of `frames`. */
  readonly totalTokens: number;
  /** True iff an eligible candidate was dropped or cut. */
  readonly truncated: boolean;
  /** Eligible candidates (after the kinds filter and dedup) that did not ship at all. */
  readonly dropped: number;
}

/** Best first: higher score, then smaller id; content and kind break the ties dedup leaves. */
function before(a: PackCandidate, b: PackCandidate): boolean {
  if (a.score !== b.score) return a.score > b.score;
  if (a.id !== b.id) return a.id < b.id;
  if (a.content !== b.content) return a.content < b.content;
  return a.kind < b.kind;
}

/** Keeps, per id, the candidate that sorts first; drops unrequested kinds. */
function eligible<C extends PackCandidate>(candidates: readonly C[], kinds: readonly FrameKind[] | undefined): C[] {
  const wanted = kinds !== undefined && kinds.length > 0 ? new Set(kinds) : undefined;
  const byId = new Map<string, C>();
  for (const candidate of candidates) {
    if (wanted !== undefined && !wanted.has(candidate.kind)) continue;
    const seen = byId.get(candidate.id);
    if (seen === undefined || before(candidate, seen)) byId.set(candidate.id, candidate);
  }
  return [...byId.values()];
}

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

/**
 * Chooses what ships under `maxTokens` and `maxFrames`, best first, counting
 * exactly only what may ship. Pure: the same candidates in any order give the same result.
 */
export function packFrames<C extends PackCandidate>(candidates: readonly C[], options: PackOptions): PackResult<C> {
  const { maxTokens, maxFrames, counter } = options;
  const cuts = options.cuts ?? new CutMemo();
  const maxProbes = options.maxProbes ?? 32;
  const pool = new Heap(eligible(candidates, options.kinds), before);
  const frames: PackedFrame<C>[] = [];
  let remaining = maxTokens;
  let probes = 0;
  let dropped = 0;
  let cut = false;
  const ship = (candidate: C, tokenCost: number) => {
    frames.push({ candidate, content: candidate.content, tokenCost });
    remaining -= tokenCost;
  };

  // Probing: best first, every candidate that may fit is counted exactly, until the
  // budget is filled by a cut, the tokens run out, or too many probes have failed.
  while (pool.size > 0 && frames.length < maxFrames && remaining > 0 && probes < maxProbes && !cut) {
    const candidate = pool.pop() as C;
    if (counter.surelyFits(candidate.content, remaining)) {
      ship(candidate, counter.count(candidate.content));
      continue;
    }
    const tokenCost = counter.count(candidate.content);
    if (tokenCost <= remaining) {
      ship(candidate, tokenCost);
      continue;
    }
    const piece = cutToFit(candidate.content, remaining, counter, cuts);
    if (piece !== undefined) {
      frames.push({ candidate, ...piece });
      remaining -= piece.tokenCost;
      cut = true;
    } else {
      dropped++;
      probes++;
    }
  }

  // Filling: from here on only candidates whose upper bound fits can ship, and they
  // need no probing. One linear pass finds them (the bound only shrinks as frames
  // ship, so this is a superset of what can still ship), and a heap of just those
  // yields them best first, only as many as the frame limit still takes.
  const rest = pool.drain();
  let shipped = 0;
  if (frames.length < maxFrames) {
    const fitting = new Heap(
      rest.filter((candidate) => counter.surelyFits(candidate.content, remaining)),
      before,
    );
    while (fitting.size > 0 && frames.length < maxFrames) {
      const candidate = fitting.pop() as C;
      if (!counter.surelyFits(candidate.content, remaining)) continue;
      ship(candidate, counter.count(candidate.content));
      shipped++;
    }
  }
  dropped += rest.length - shipped;

  return { frames, totalTokens: maxTokens - remaining, truncated: cut || dropped > 0, dropped };
}
