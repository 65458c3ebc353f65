/**
 * Filling, the last pass of both packers (pack.ts's breadth, depth.ts's past the field):
 * once probing is over, only candidates whose cheap upper bound fits the tokens left can
 * ship, and they need no probing. One linear pass finds them (the bound only shrinks as
 * frames ship, so this is a superset of what can still ship), and a heap of just those
 * yields them best first, only as many as the frame limit still takes.
 */
import type { TokenCounter } from "../tokens/counter.js";
import { Heap } from "./heap.js";
import { before } from "./order.js";
import type { PackCandidate } from "./types.js";

/** What a packer tells {@link fillSurelyFitting} of its state, and how it takes a candidate. */
export interface Filling<C extends PackCandidate> {
  /** Tokens left in the budget. */
  remaining(): number;
  /** Whether the frame limit is reached. */
  full(): boolean;
  /** Ships `candidate` whole if its lines and id allow (the packer counts a clash as it does elsewhere). */
  take(candidate: C): void;
}

/**
 * Offers `take` each candidate of `rest` that surely fits the tokens left, best first,
 * until the frame limit; returns how many of `rest` were never offered (dropped unseen).
 */
export function fillSurelyFitting<C extends PackCandidate>(
  rest: readonly C[],
  counter: Pick<TokenCounter, "surelyFits">,
  packer: Filling<C>,
): number {
  let left = rest.length;
  if (packer.full()) return left;
  const fitting = new Heap(
    rest.filter((candidate) => counter.surelyFits(candidate.content, packer.remaining())),
    before,
  );
  while (fitting.size > 0 && !packer.full()) {
    const candidate = fitting.pop() as C;
    if (!counter.surelyFits(candidate.content, packer.remaining())) continue;
    left--;
    packer.take(candidate);
  }
  return left;
}
