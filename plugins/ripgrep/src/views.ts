/**
 * Larger views of a snippet (docs/packing.md): the blocks that enclose it, the span that
 * holds it and another window of its file close by, and the whole file when it is small —
 * smallest first, each holding the one before. The file's other windows that the largest
 * view holds fold into this region. The packer ships at most one of them, deep where the
 * snippet's score stands above the rest.
 */
import type { LineRange } from "ocp-provider";
import { type BlockSource, enclosingBlocks } from "./blocks.js";

/** A file's text split into lines, each with its own terminator (the framework's `sliceLines` convention). */
export class FileText implements BlockSource {
  readonly #lines: string[];

  constructor(text: string) {
    const lines = text.split("\n");
    for (let i = 0; i < lines.length - 1; i++) lines[i] += "\n";
    // "a\nb\n" is two lines: the empty piece after the last terminator is none.
    if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
    this.#lines = lines;
  }

  get lineCount(): number {
    return this.#lines.length;
  }

  /** Line `line` without its terminator (`\n` or `\r\n`). */
  text(line: number): string {
    const raw = this.#lines[line - 1] ?? "";
    return raw.endsWith("\r\n") ? raw.slice(0, -2) : raw.endsWith("\n") ? raw.slice(0, -1) : raw;
  }

  /** The UTF-16 length of line `line`, its terminator included. */
  length(line: number): number {
    return (this.#lines[line - 1] ?? "").length;
  }

  /** Lines `start..end`, terminators kept: exactly what the file holds there. */
  slice(start: number, end: number): string {
    return this.#lines.slice(start - 1, end).join("");
  }
}

/** Options of {@link viewRanges}. */
export interface ViewOptions {
  /** The span holding another window too is a view when it has at most this many lines. */
  foldLines: number;
  /** The whole file is a view when it has at most this many lines. */
  wholeFileLines: number;
  /** No view is longer than this many UTF-16 units (one that large could never ship). */
  maxUnits: number;
  /** Lines no view may hold (too long to ship): a view holding one ends the ladder. */
  isBlocked: (line: number) => boolean;
}

/** A region's ladder: its views' ranges, smallest first, and which of the other windows it folds in. */
export interface ViewPlan {
  readonly views: LineRange[];
  /** Indexes into `others` of the windows that fold into this region. */
  readonly folded: number[];
}

const size = (range: LineRange) => range.end - range.start + 1;
const hull = (a: LineRange, b: LineRange): LineRange => ({
  start: Math.min(a.start, b.start),
  end: Math.max(a.end, b.end),
});

/**
 * The views of the snippet at `window` in `file`, given the file's `others` windows (see
 * the module comment). Every view holds the window and the view before it and lies in the file.
 */
export function viewRanges(
  file: FileText,
  window: LineRange,
  others: readonly LineRange[],
  options: ViewOptions,
): ViewPlan {
  const last = file.lineCount;
  if (window.start < 1 || window.end > last || window.end < window.start) return { views: [], folded: [] };
  const wanted: LineRange[] = enclosingBlocks(file, window);
  for (const other of others) {
    const span = hull(window, other);
    if (other.start >= 1 && other.end <= last && size(span) <= options.foldLines) wanted.push(span);
  }
  if (last <= options.wholeFileLines) wanted.push({ start: 1, end: last });
  wanted.sort((a, b) => size(a) - size(b) || a.start - b.start);
  const views: LineRange[] = [];
  let inner = window;
  let units = 0;
  for (let line = window.start; line <= window.end; line++) units += file.length(line);
  for (const range of wanted) {
    const view = hull(inner, range);
    if (view.start === inner.start && view.end === inner.end) continue;
    // Grow the count by the new lines only: each view holds the one before.
    let blocked = false;
    for (let line = view.start; line < inner.start; line++) {
      units += file.length(line);
      blocked ||= options.isBlocked(line);
    }
    for (let line = inner.end + 1; line <= view.end; line++) {
      units += file.length(line);
      blocked ||= options.isBlocked(line);
    }
    if (blocked || units > options.maxUnits) break;
    views.push(view);
    inner = view;
  }
  // Every window the largest view holds folds in: as a region of its own it would compete for
  // the lines the views need (a frame of it would stop this region's climb).
  const folded: number[] = [];
  others.forEach((other, index) => {
    if (views.length > 0 && inner.start <= other.start && other.end <= inner.end) folded.push(index);
  });
  return { views, folded };
}
