/**
 * Regions: a candidate, its larger views and its one-line pointer are one region, of
 * which at most one frame ships. Across regions, the lines already shipped of each
 * source are kept here, so no two frames of one uri ever hold the same line.
 */
import { type LineRange, lineEnds } from "./lines.js";
import type { PackCandidate } from "./types.js";

/** How a range stands to what already shipped of its uri. */
export type Clash = "free" | "covered" | "overlaps";

/** A candidate that has a uri and a range: its frames are subject to the no-overlap rule. */
export type Located = PackCandidate & { readonly uri: string; readonly range: LineRange };

/** True if `candidate` has a uri and a range. */
export function isLocated(candidate: PackCandidate): candidate is Located {
  return candidate.uri !== undefined && candidate.range !== undefined;
}

/** The line ranges shipped so far, by uri. A handful of frames per uri: a list is the right index. */
export class ShippedLines {
  readonly #byUri = new Map<string, LineRange[]>();

  /** Where `range` of `uri` falls against what shipped. */
  clash(uri: string, range: LineRange): Clash {
    const shipped = this.#byUri.get(uri);
    if (shipped === undefined) return "free";
    let overlaps = false;
    for (const other of shipped) {
      if (other.start <= range.start && range.end <= other.end) return "covered";
      if (other.start <= range.end && range.start <= other.end) overlaps = true;
    }
    return overlaps ? "overlaps" : "free";
  }

  /** Records a shipped range. */
  add(uri: string, range: LineRange): void {
    const shipped = this.#byUri.get(uri);
    if (shipped === undefined) this.#byUri.set(uri, [range]);
    else shipped.push(range);
  }

  /** Forgets a shipped range (the very object added), when a frame is replaced by a larger one. */
  remove(uri: string, range: LineRange): void {
    const shipped = this.#byUri.get(uri);
    if (shipped === undefined) return;
    const at = shipped.indexOf(range);
    if (at !== -1) shipped.splice(at, 1);
  }
}

/** A one-line pointer: the line's exact text (terminator kept) and its line number. */
export interface Pointer {
  readonly content: string;
  readonly range: LineRange;
}

const NOT_BLANK = /\S/;

/**
 * The pointer of a located candidate: its `pointerLine`, else its first line with
 * something on it; undefined when that line is not in its content (a content shorter
 * than its range). The pointer of a one-line candidate is all of it.
 */
export function pointerOf(candidate: Located): Pointer | undefined {
  const { content, range } = candidate;
  const ends = lineEnds(content);
  let index = candidate.pointerLine !== undefined ? candidate.pointerLine - range.start : -1;
  if (index === -1) {
    for (let i = 0; i < ends.length; i++) {
      const text = content.slice(i === 0 ? 0 : (ends[i - 1] as number), ends[i] as number);
      if (NOT_BLANK.test(text)) {
        index = i;
        break;
      }
    }
  }
  if (index < 0 || index >= ends.length || range.start + index > range.end) return undefined;
  const text = content.slice(index === 0 ? 0 : (ends[index - 1] as number), ends[index] as number);
  const line = range.start + index;
  return { content: text, range: { start: line, end: line } };
}

/** The lines a frame of `candidate` holds when `keptLines` of its content ship (all of it when undefined). */
export function keptRange(range: LineRange, keptLines: number | undefined): LineRange {
  if (keptLines === undefined) return range;
  return { start: range.start, end: Math.min(range.end, range.start + keptLines - 1) };
}
