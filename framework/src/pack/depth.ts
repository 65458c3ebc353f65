/**
 * Depth: packing when candidates offer larger views of themselves (docs/packing.md).
 *
 * The field is the best `maxFrames` regions. The packer reads their scores as odds —
 * a region scoring `scoreStep` higher is twice as likely to be the one the host needs —
 * and values a frame of t tokens of region i at p_i · ln(1 + t / 32): the expected log
 * of what the host gets of the region it needs, so doubling a frame is worth the same
 * however large it is, and more the likelier its region. Each region climbs a ladder —
 * nothing, a one-line pointer, itself, each larger view — and the packer buys, one step
 * at a time, the step worth most per token that still fits: the greedy solution of that
 * knapsack. The top region starts at itself (whole). The first step that does not fit
 * ends the top region's climb, so a bigger budget never ships less of it; the others
 * keep buying the steps that fit.
 *
 * When no region of the field offers a view, or the top region does not fit whole, this
 * returns undefined and the caller packs breadth-first, exactly as without views.
 */
import { fillSurelyFitting } from "./fill.js";
import { Heap } from "./heap.js";
import type { LineRange } from "./lines.js";
import { isLocated, pointerOf, ShippedLines } from "./regions.js";
import type { PackCandidate, PackedFrame, PackOptions, PackResolution, PackResult } from "./types.js";

/** A pointer longer than this is no pointer: its region's ladder starts at itself. */
export const POINTER_MAX_TOKENS = 48;
/** τ in a frame's value p · ln(1 + tokens / τ): a frame of τ tokens is worth ln 2 of its region. */
export const VALUE_TOKENS = 32;
/**
 * A view longer than this many UTF-16 units per token of the budget is not counted: it is
 * taken to cost units / 16 tokens, more than the budget (real text runs 3–5 bytes a token),
 * so counting a whole file never costs more than the budget is worth.
 */
const UNITS_PER_TOKEN = 16;

/** {@link packDeep}'s options: the packer's, defaults settled. */
export type DepthOptions = PackOptions & Required<Pick<PackOptions, "scoreStep">>;

/** How likely each region is the one needed, from scores best first: in proportion to 2^((score − best) / step). */
export function regionOdds(scores: readonly number[], step: number): number[] {
  const best = scores[0] ?? 0;
  const weights = scores.map((score) => 2 ** ((score - best) / step));
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  return weights.map((weight) => weight / total);
}

/** One rung of a region's ladder: a frame it can ship, and its cost (exact, or a lower bound over the budget). */
interface Rung<C extends PackCandidate> {
  readonly frame: PackedFrame<C>;
  /** The lines it holds (located regions). */
  readonly lines: LineRange | undefined;
  /** Exact: it may ship. Not exact: too long to count, and over the budget. */
  readonly exact: boolean;
}

/** A region's next step up, waiting its turn: worth `gain` per token. */
interface Step {
  readonly region: number;
  readonly gain: number;
}

/**
 * Packs `field` (the best regions, best first) with depth, then what of `rest` still
 * fits; undefined when no region of the field offers a view or the top does not fit whole.
 */
export function packDeep<C extends PackCandidate>(
  field: readonly C[],
  rest: Heap<C>,
  options: DepthOptions,
): PackResult<C> | undefined {
  const { maxTokens: budget, maxFrames, counter } = options;
  const top = field[0];
  if (top === undefined || !field.some((candidate) => (candidate.resolutions?.length ?? 0) > 0)) return undefined;
  const odds = regionOdds(
    field.map((candidate) => candidate.score),
    options.scoreStep,
  );
  const count = (text: string): { tokens: number; exact: boolean } =>
    text.length > UNITS_PER_TOKEN * budget
      ? { tokens: text.length / UNITS_PER_TOKEN, exact: false }
      : { tokens: counter.count(text), exact: true };
  const topCost = count(top.content);
  if (!topCost.exact || topCost.tokens > budget) return undefined;

  /** Rung `at` of region `i`: 0 its pointer (never the top's), 1 itself, 2 and up its views. */
  const rungOf = (i: number, at: number): Rung<C> | undefined => {
    const candidate = field[i] as C;
    if (at === 0) {
      const pointer = i > 0 && isLocated(candidate) ? pointerOf(candidate) : undefined;
      if (pointer === undefined || pointer.content === candidate.content) return undefined;
      const { tokens, exact } = count(pointer.content);
      if (tokens > POINTER_MAX_TOKENS) return undefined;
      const frame = { candidate, content: pointer.content, tokenCost: tokens, range: pointer.range, pointer: true };
      return { frame: frame as PackedFrame<C>, lines: pointer.range, exact };
    }
    if (at === 1) {
      const { tokens, exact } = count(candidate.content);
      return { frame: { candidate, content: candidate.content, tokenCost: tokens }, lines: candidate.range, exact };
    }
    const view = candidate.resolutions?.[at - 2] as PackResolution | undefined;
    if (view === undefined) return undefined;
    const { tokens, exact } = count(view.content);
    const frame = { candidate, content: view.content, tokenCost: tokens, range: view.range, resolution: view };
    return { frame, lines: view.range, exact };
  };

  const value = (i: number, tokens: number) => (odds[i] as number) * Math.log1p(tokens / VALUE_TOKENS);
  const held: (Rung<C> | undefined)[] = new Array(field.length).fill(undefined);
  const next: (Rung<C> | undefined)[] = new Array(field.length).fill(undefined);
  /** The rung each region would climb to next. */
  const levels: number[] = field.map(() => 0);
  const lines = new ShippedLines();
  const ids = new Set<string>();
  const frameId = (frame: PackedFrame<C>) => frame.resolution?.id ?? frame.candidate.id;
  let remaining = budget;
  const hold = (i: number, rung: Rung<C>) => {
    const old = held[i];
    if (old !== undefined) {
      remaining += old.frame.tokenCost;
      ids.delete(frameId(old.frame));
      if (old.lines !== undefined) lines.remove(field[i]?.uri as string, old.lines);
    }
    held[i] = rung;
    remaining -= rung.frame.tokenCost;
    ids.add(frameId(rung.frame));
    if (rung.lines !== undefined) lines.add(field[i]?.uri as string, rung.lines);
  };

  const steps = new Heap<Step>([], (a, b) => (a.gain !== b.gain ? a.gain > b.gain : a.region < b.region));
  const offer = (i: number) => {
    let rung = rungOf(i, levels[i] as number);
    if (rung === undefined && levels[i] === 0) {
      // No pointer (unlocated, one line already, or a long line): the ladder starts at the region itself.
      levels[i] = 1;
      rung = rungOf(i, 1);
    }
    next[i] = rung;
    if (rung === undefined) return;
    const from = held[i]?.frame.tokenCost ?? 0;
    const extra = rung.frame.tokenCost - from;
    const gain = extra <= 0 ? Number.POSITIVE_INFINITY : (value(i, rung.frame.tokenCost) - value(i, from)) / extra;
    steps.push({ region: i, gain });
  };

  hold(0, rungOf(0, 1) as Rung<C>);
  levels[0] = 2;
  for (let i = 0; i < field.length; i++) offer(i);
  let topClimbs = true;
  while (steps.size > 0) {
    const { region: i } = steps.pop() as Step;
    if (i === 0 && !topClimbs) continue;
    const rung = next[i] as Rung<C>;
    const current = held[i];
    // A region that cannot take this step stops climbing (its later steps are larger): for
    // an id another frame took or lines another frame holds — the same at any budget — or
    // for want of tokens. (Frames never run short: the field is at most maxFrames regions.)
    const id = frameId(rung.frame);
    if (ids.has(id) && (current === undefined || frameId(current.frame) !== id)) continue;
    if (rung.lines !== undefined) {
      const uri = field[i]?.uri as string;
      if (current?.lines !== undefined) lines.remove(uri, current.lines);
      const clash = lines.clash(uri, rung.lines);
      if (current?.lines !== undefined) lines.add(uri, current.lines);
      if (clash !== "free") continue;
    }
    if (!rung.exact || rung.frame.tokenCost - (current?.frame.tokenCost ?? 0) > remaining) {
      // The first step that does not fit ends the top's climb: the steps before it are the
      // same at any bigger budget, and fit there too, so the top never ships less there.
      topClimbs = false;
      continue;
    }
    hold(i, rung);
    levels[i] = (levels[i] as number) + 1;
    offer(i);
  }
  const shipped = held.flatMap((rung) => (rung === undefined ? [] : [rung.frame]));
  let dropped = 0;
  for (let i = 0; i < field.length; i++) {
    const candidate = field[i] as C;
    if (held[i] !== undefined) continue;
    if (!isLocated(candidate) || lines.clash(candidate.uri, candidate.range) !== "covered") dropped++;
  }

  // Past the field (its regions were covered or dropped): whatever surely fits, best first.
  const left = fillSurelyFitting(rest.drain(), counter, {
    remaining: () => remaining,
    full: () => shipped.length >= maxFrames,
    take: (candidate) => {
      const clash = isLocated(candidate) ? lines.clash(candidate.uri, candidate.range) : "free";
      if (clash === "covered") return;
      if (clash === "overlaps" || ids.has(candidate.id)) {
        dropped++;
        return;
      }
      const frame = { candidate, content: candidate.content, tokenCost: counter.count(candidate.content) };
      shipped.push(frame);
      remaining -= frame.tokenCost;
      ids.add(candidate.id);
      if (isLocated(candidate)) lines.add(candidate.uri, candidate.range);
    },
  });
  dropped += left;
  const reduced = shipped.some((frame) => frame.pointer === true);
  return { frames: shipped, totalTokens: budget - remaining, truncated: reduced || dropped > 0, dropped };
}
