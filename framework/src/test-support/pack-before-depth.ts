/**
 * The packer as it was before regions, views and the no-overlap rule: breadth first,
 * whole or cut. Test-only: the oracle a pool without views must still match.
 */
import { CutMemo, cutToFit } from "../pack/cut.js";
import { Heap } from "../pack/heap.js";
import type { PackCandidate, PackedFrame, PackOptions, PackResult } from "../pack/types.js";
import type { FrameKind } from "../wire/schemas.js";

function before(a: PackCandidate, b: PackCandidate): boolean {
  if (a.score !== b.score) return a.score > b.score;
  if (a.id !== b.id) return a.id < b.id;
  if (a.content !== b.content) return a.content < b.content;
  return a.kind < b.kind;
}

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

/** `packFrames` before depth, verbatim but for the names. */
export function packFramesBeforeDepth<C extends PackCandidate>(
  candidates: readonly C[],
  options: PackOptions,
): PackResult<C> {
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
