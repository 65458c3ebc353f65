/**
 * The budget packer: which candidates ship — whole, cut, as a larger view or as a
 * one-line pointer — under a query's limits. docs/packing.md states the objective.
 *
 * Breadth (this file): candidates are taken best-first (score descending, then id
 * ascending, so ties and input order never change the answer). Each one ships whole
 * if it fits the tokens left; if it does not, it is cut to the longest prefix of whole
 * lines that fits. A lower-scored candidate never displaces a higher-scored one.
 * Depth (depth.ts): when a candidate of the field offers larger views of itself, the
 * budget goes where the scores make it worth most: deep where one region stands above
 * the rest, broad where the ranking is flat, with one-line pointers between.
 *
 * Both keep the no-overlap rule: no two frames of one uri hold the same line (regions.ts).
 *
 * Cost: only content that ships is counted exactly. A candidate whose cheap upper
 * bound (its UTF-8 length) fits is counted once and shipped. One that may not fit
 * is counted at most once, and only until `maxProbes` such counts have failed or
 * the budget has been filled by a cut; after that, only candidates whose upper
 * bound fits are considered. The work therefore grows with the budget, not the pool.
 */

import type { FrameKind } from "../wire/schemas.js";
import { CutMemo, cutToFit } from "./cut.js";
import { packDeep } from "./depth.js";
import { fillSurelyFitting } from "./fill.js";
import { Heap } from "./heap.js";
import { before } from "./order.js";
import { isLocated, keptRange, ShippedLines } from "./regions.js";
import {
  DEFAULT_SCORE_STEP,
  type PackCandidate,
  type PackedFrame,
  type PackOptions,
  type PackResult,
} from "./types.js";

export { CutMemo, cutToFit } from "./cut.js";
export {
  DEFAULT_SCORE_STEP,
  type PackCandidate,
  type PackedFrame,
  type PackOptions,
  type PackResolution,
  type PackResult,
} from "./types.js";

/** Keeps, per id, the candidate that sorts first; drops unrequested kinds. Says whether any offers a larger view. */
function eligible<C extends PackCandidate>(
  candidates: readonly C[],
  kinds: readonly FrameKind[] | undefined,
): { pool: C[]; deep: boolean } {
  const wanted = kinds !== undefined && kinds.length > 0 ? new Set(kinds) : undefined;
  const byId = new Map<string, C>();
  let deep = false;
  for (const candidate of candidates) {
    if (wanted !== undefined && !wanted.has(candidate.kind)) continue;
    const seen = byId.get(candidate.id);
    if (seen === undefined || before(candidate, seen)) byId.set(candidate.id, candidate);
    deep ||= candidate.resolutions !== undefined && candidate.resolutions.length > 0;
  }
  return { pool: [...byId.values()], deep };
}

/**
 * Chooses what ships under `maxTokens` and `maxFrames`, best first, counting exactly
 * only what may ship. Pure: the same candidates in any order give the same result.
 */
export function packFrames<C extends PackCandidate>(candidates: readonly C[], options: PackOptions): PackResult<C> {
  const { pool, deep } = eligible(candidates, options.kinds);
  const heap = new Heap(pool, before);
  if (deep && options.maxFrames > 0 && options.maxTokens > 0) {
    // The field: the regions that could ship a frame at all. Depth decides among them.
    const field: C[] = [];
    while (field.length < options.maxFrames && heap.size > 0) field.push(heap.pop() as C);
    const packed = packDeep(field, heap, { ...options, scoreStep: options.scoreStep ?? DEFAULT_SCORE_STEP });
    if (packed !== undefined) return packed;
    for (const candidate of field) heap.push(candidate);
  }
  return packBreadth(heap, options);
}

/** Breadth first: every candidate ships whole or cut, best first, as long as the budget lasts. */
function packBreadth<C extends PackCandidate>(pool: Heap<C>, options: PackOptions): PackResult<C> {
  const { maxTokens, maxFrames, counter } = options;
  const cuts = options.cuts ?? new CutMemo();
  const maxProbes = options.maxProbes ?? 32;
  const frames: PackedFrame<C>[] = [];
  const lines = new ShippedLines();
  let remaining = maxTokens;
  let probes = 0;
  let dropped = 0;
  let cut = false;
  const ship = (frame: PackedFrame<C>) => {
    frames.push(frame);
    remaining -= frame.tokenCost;
    const { candidate } = frame;
    if (isLocated(candidate)) lines.add(candidate.uri, keptRange(candidate.range, frame.keptLines));
  };
  /** False when the candidate's lines clash with a frame already shipped: counted as dropped unless covered. */
  const free = (candidate: C) => {
    if (!isLocated(candidate)) return true;
    const clash = lines.clash(candidate.uri, candidate.range);
    if (clash === "overlaps") dropped++;
    return clash === "free";
  };

  // Probing: best first, every candidate that may fit is counted exactly, until the
  // budget is filled by a cut, the tokens run out, or too many probes have failed.
  while (pool.size > 0 && frames.length < maxFrames && remaining > 0 && probes < maxProbes && !cut) {
    const candidate = pool.pop() as C;
    if (!free(candidate)) continue;
    if (counter.surelyFits(candidate.content, remaining)) {
      ship({ candidate, content: candidate.content, tokenCost: counter.count(candidate.content) });
      continue;
    }
    const tokenCost = counter.count(candidate.content);
    if (tokenCost <= remaining) {
      ship({ candidate, content: candidate.content, tokenCost });
      continue;
    }
    const piece = cutToFit(candidate.content, remaining, counter, cuts);
    if (piece !== undefined) {
      ship({ candidate, ...piece });
      cut = true;
    } else {
      dropped++;
      probes++;
    }
  }

  // Filling: only what surely fits still ships, best first (fill.ts).
  const left = fillSurelyFitting(pool.drain(), counter, {
    remaining: () => remaining,
    full: () => frames.length >= maxFrames,
    take: (candidate) => {
      if (free(candidate)) ship({ candidate, content: candidate.content, tokenCost: counter.count(candidate.content) });
    },
  });
  dropped += left;

  return { frames, totalTokens: maxTokens - remaining, truncated: cut || dropped > 0, dropped };
}
