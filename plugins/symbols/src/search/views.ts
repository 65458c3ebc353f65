/**
 * Larger views of a definition: what a frame can grow to when the packer finds its
 * region clearly above the rest (docs/packing.md). A definition's ladder is its head
 * (doc comment and declaration line: what ships when the ranking is flat), then the
 * whole definition, then ever larger sections of its file — the definition with its
 * neighbours, the enclosing class with its members, the module — up to the whole file
 * when it is at most `maxViewLines` long. Each view holds the one before, and each is
 * at least {@link GROWTH} times its size, so the packer's steps stay few and each one
 * doubles what it buys.
 *
 * Sections follow the file's structure: a view grows by whole sibling definitions
 * (the children of the smallest definition that encloses it, or the file's top-level
 * ones), then becomes the enclosing definition, and so on out to the file. Where the
 * goal's words lie decides the direction: the neighbour holding more of them per
 * character comes first, so a section reaches the lines that matter before the others.
 */
import type { Source } from "./sources.js";

/** A 1-based inclusive line range. */
export interface Span {
  readonly start: number;
  readonly end: number;
}

/** What a definition is, as views see it: its lines and those of its doc comment. */
export interface Definition {
  readonly startLine: number;
  readonly endLine: number;
  readonly docStartLine?: number | undefined;
}

/** One larger view: its lines, and what it is (for its title). */
export interface View<D extends Definition> extends Span {
  /**
   * `definition`: the definition whole; `container`: exactly an enclosing definition;
   * `section`: a run of definitions; `lines`: part of the way to the next of those; `file`: all of it.
   */
  readonly kind: "definition" | "container" | "section" | "lines" | "file";
  /** The enclosing definition, for `container`. */
  readonly container?: D;
}

/** A definition's head (what its own frame holds), the line a pointer shows, and its larger views, smallest first. */
export interface Ladder<D extends Definition> {
  readonly own: Span;
  /** The declaration's first line, when `own` holds it. */
  readonly pointerLine: number | undefined;
  readonly views: readonly View<D>[];
}

/** Limits on a ladder. */
export interface ViewLimits {
  /** Most lines in a definition's own frame. */
  readonly maxContentLines: number;
  /** Most bytes in a definition's own frame (its first line always ships). */
  readonly maxContentBytes: number;
  /** No frame holds a longer line (minified code): a view stops short of it. */
  readonly maxLineBytes: number;
  /** Most lines in a larger view: the whole file is offered only when at most this long. */
  readonly maxViewLines: number;
}

/** Each view is at least this many times the size (in characters) of the one before. */
export const GROWTH = 2;
/** A step more than this many times the size of the view before is split into steps of {@link GROWTH}. */
export const MAX_STEP = 4;
/** A definition longer than this (characters) is centred on its member that holds most of the goal. */
export const FOCUS_CHARS = 2000;
/** A doc comment longer than this many lines stays out of the head (the whole definition still holds it). */
const MAX_HEAD_DOC = 6;
/** The declaration's header is looked for in this many lines from its first. */
const MAX_HEADER = 6;
/** A definition this short (lines, doc comment included) is its own head. */
const SMALL_DEFINITION = 4;
const OPENS_BODY = /[{:]\s*(?:\/\/.*|#.*)?$|=>\s*$|\b(?:do|then|begin)\s*$/;

/** Where each definition sits: the smallest definition that encloses it, and the definitions directly inside each. */
export class Outline<D extends Definition> {
  /** Definitions by position: start ascending, the larger first. */
  readonly sorted: readonly D[];
  readonly #spans: Span[];
  readonly #parent: Int32Array;
  /** Children of each definition (index), and of the file (-1), in line order. */
  readonly #children = new Map<number, number[]>();

  constructor(
    definitions: readonly D[],
    readonly lineCount: number,
  ) {
    const spans = definitions.map((definition) => spanOf(definition, lineCount));
    const order = definitions.map((_, i) => i).filter((i) => (spans[i] as Span).start <= (spans[i] as Span).end);
    order.sort((a, b) => {
      const x = spans[a] as Span;
      const y = spans[b] as Span;
      return x.start - y.start || y.end - x.end || a - b;
    });
    this.sorted = order.map((i) => definitions[i] as D);
    this.#spans = order.map((i) => spans[i] as Span);
    this.#parent = new Int32Array(order.length).fill(-1);
    const stack: number[] = [];
    for (let i = 0; i < order.length; i++) {
      const span = this.#spans[i] as Span;
      while (stack.length > 0 && !holds(this.#spans[stack[stack.length - 1] as number] as Span, span)) stack.pop();
      const parent = stack.length > 0 ? (stack[stack.length - 1] as number) : -1;
      this.#parent[i] = parent;
      const siblings = this.#children.get(parent);
      if (siblings === undefined) this.#children.set(parent, [i]);
      else siblings.push(i);
      stack.push(i);
    }
  }

  /** The index of `definition` in {@link sorted}, or -1. */
  indexOf(definition: D): number {
    return this.sorted.indexOf(definition);
  }

  span(index: number): Span {
    return index === -1 ? { start: 1, end: this.lineCount } : (this.#spans[index] as Span);
  }

  parent(index: number): number {
    return this.#parent[index] as number;
  }

  children(index: number): readonly number[] {
    return this.#children.get(index) ?? [];
  }
}

/** The lines a definition covers: from its doc comment (or first line) to its end, within the file. */
export function spanOf(definition: Definition, lineCount: number): Span {
  const start = Math.max(1, Math.min(definition.docStartLine ?? definition.startLine, definition.startLine));
  return { start, end: Math.min(definition.endLine, lineCount) };
}

/** `outer` holds all of `inner`. */
function holds(outer: Span, inner: Span): boolean {
  return outer.start <= inner.start && inner.end <= outer.end;
}

/** Characters (UTF-16 units) of lines `span`. */
function chars(source: Source, span: Span): number {
  return (source.starts[span.end] as number) - (source.starts[span.start - 1] as number);
}

/** UTF-8 bytes of line `line`: exact only when it could matter (a line is at most 3 bytes per unit, 4 per pair). */
function lineBytes(source: Source, line: number, over: number): number {
  const from = source.starts[line - 1] as number;
  const to = source.starts[line] as number;
  const units = to - from;
  if (units > over || units * 3 <= over) return units;
  return Buffer.byteLength(source.text.slice(from, to));
}

/**
 * The head of a definition: its doc comment (when short) and its declaration up to the
 * line that opens its body, within the content limits; the whole definition when short.
 */
export function headOf(definition: Definition, source: Source, limits: ViewLimits): Span | undefined {
  const lineCount = source.starts.length - 1;
  const whole = spanOf(definition, lineCount);
  if (whole.start > whole.end) return undefined;
  const first = Math.min(Math.max(1, definition.startLine), whole.end);
  let start = first - whole.start > MAX_HEAD_DOC ? first : whole.start;
  let end = first;
  if (whole.end - whole.start + 1 <= SMALL_DEFINITION) {
    start = whole.start;
    end = whole.end;
  } else {
    const last = Math.min(whole.end, first + MAX_HEADER - 1);
    end = last;
    for (let line = first; line <= last; line++) {
      const text = source.text.slice(source.starts[line - 1], source.starts[line]).trimEnd();
      if (OPENS_BODY.test(text)) {
        end = line;
        break;
      }
    }
    if (end === last && last < whole.end && !OPENS_BODY.test(lineText(source, last))) end = first;
  }
  // The content limits: the first line always, then lines while they fit.
  if (lineBytes(source, start, limits.maxLineBytes) > limits.maxLineBytes) return undefined;
  let bytes = 0;
  let kept = start - 1;
  for (let line = start; line <= end && line - start < limits.maxContentLines; line++) {
    const size = lineBytes(source, line, limits.maxLineBytes);
    if (size > limits.maxLineBytes || (line > start && bytes + size > limits.maxContentBytes)) break;
    bytes += size;
    kept = line;
  }
  return { start, end: kept };
}

function lineText(source: Source, line: number): string {
  return source.text.slice(source.starts[line - 1], source.starts[line]).trimEnd();
}

/**
 * The ladder of `definition` in its file: its head, then larger views, each holding
 * the one before and at least {@link GROWTH} times its size, none holding a line over
 * `maxLineBytes` or more than `maxViewLines` lines. `weight(span)`, when given, is how
 * much of the goal lies in those lines: a section grows first toward more of it.
 * Undefined when the definition's first line is over-long or outside the file.
 */
export function ladderOf<D extends Definition>(
  definition: D,
  outline: Outline<D>,
  source: Source,
  limits: ViewLimits,
  weight?: (span: Span) => number,
): Ladder<D> | undefined {
  const lineCount = source.starts.length - 1;
  const own = headOf(definition, source, limits);
  if (own === undefined) return undefined;
  const pointerLine =
    own.start <= definition.startLine && definition.startLine <= own.end ? definition.startLine : undefined;
  const views: View<D>[] = [];
  // Over-long lines bound every view: the first one above the head and below it.
  let floor = 1;
  let ceiling = lineCount;
  // (No view reaches farther than maxViewLines from the head, so neither does the search.)
  for (let line = own.start - 1; line >= Math.max(1, own.end - limits.maxViewLines + 1); line--) {
    if (lineBytes(source, line, limits.maxLineBytes) > limits.maxLineBytes) {
      floor = line + 1;
      break;
    }
  }
  for (let line = own.end + 1; line <= Math.min(lineCount, own.start + limits.maxViewLines - 1); line++) {
    if (lineBytes(source, line, limits.maxLineBytes) > limits.maxLineBytes) {
      ceiling = line - 1;
      break;
    }
  }
  let last: Span = own;
  let lastChars = chars(source, own);
  const push = (span: Span, size: number, kind: View<D>["kind"], container?: D) => {
    views.push(container !== undefined ? { ...span, kind, container } : { ...span, kind });
    last = span;
    lastChars = size;
  };
  const offer = (span: Span, kind: View<D>["kind"], container?: D): boolean => {
    if (span.start < floor || span.end > ceiling || span.end - span.start + 1 > limits.maxViewLines) return false;
    if (!holds(span, last) || (span.start === last.start && span.end === last.end)) return true;
    const size = chars(source, span);
    // A step this large is taken in smaller ones, line by line toward it (down first: a body reads from its top).
    while (size > MAX_STEP * lastChars) {
      const target = GROWTH * lastChars;
      let { start, end } = last;
      while (end < span.end && chars(source, { start, end }) < target) end++;
      while (start > span.start && chars(source, { start, end }) < target) start--;
      push({ start, end }, chars(source, { start, end }), "lines");
    }
    const whole = span.start === 1 && span.end === lineCount;
    // Too small a step is skipped (the next one holds it), except the definition itself and the whole file.
    if (size < GROWTH * lastChars && kind !== "definition" && !whole) return true;
    if (span.start !== last.start || span.end !== last.end) push(span, size, kind, container);
    return true;
  };

  let index = outline.indexOf(definition);
  let current: Span = spanOf(definition, lineCount);
  if (!offer(current, "definition")) return { own, pointerLine, views };
  if (index === -1) {
    // Not in the outline (not one of the file's definitions): the file is the one larger view.
    offer({ start: 1, end: lineCount }, "file");
    return { own, pointerLine, views };
  }
  // Out from the definition: its siblings one at a time, then its parent whole, up to the file.
  for (;;) {
    const parent = outline.parent(index);
    const siblings = outline.children(parent);
    let low = siblings.indexOf(index);
    let high = low;
    for (;;) {
      // The next sibling each way; at the file's level, past the last one is the file's edge.
      const up = low > 0 ? outline.span(siblings[low - 1] as number).start : parent === -1 ? 1 : current.start;
      const down =
        high < siblings.length - 1
          ? outline.span(siblings[high + 1] as number).end
          : parent === -1
            ? lineCount
            : current.end;
      const canUp = up < current.start;
      const canDown = down > current.end;
      if (!canUp && !canDown) break;
      let goUp = canUp;
      if (canUp && canDown) {
        const above = { start: up, end: current.start - 1 };
        const below = { start: current.end + 1, end: down };
        const a = weight !== undefined ? weight(above) / Math.max(1, chars(source, above)) : 0;
        const b = weight !== undefined ? weight(below) / Math.max(1, chars(source, below)) : 0;
        goUp = a !== b ? a > b : chars(source, above) <= chars(source, below);
      }
      const next = goUp ? { start: up, end: current.end } : { start: current.start, end: down };
      if (goUp) low--;
      else high++;
      const whole = next.start === 1 && next.end === lineCount;
      if (!offer(next, whole ? "file" : "section")) return { own, pointerLine, views };
      current = next;
    }
    if (parent === -1) break;
    index = parent;
    const container = outline.span(parent);
    current = { start: Math.min(container.start, current.start), end: Math.max(container.end, current.end) };
    if (!offer(current, "container", outline.sorted[parent])) return { own, pointerLine, views };
  }
  return { own, pointerLine, views };
}

/**
 * Where a ladder should start for `definition`: itself, or — when it is longer than
 * {@link FOCUS_CHARS} and the goal's words lie in its members — the member holding most
 * of them, and so on down. A large class chosen for its words then ships the method
 * that holds them first, the class around it only when the budget allows.
 */
export function focusOf<D extends Definition>(
  definition: D,
  outline: Outline<D>,
  source: Source,
  weight: (span: Span) => number,
): D {
  let index = outline.indexOf(definition);
  if (index === -1) return definition;
  for (;;) {
    if (chars(source, outline.span(index)) <= FOCUS_CHARS) break;
    let best = -1;
    let bestWeight = 0;
    for (const child of outline.children(index)) {
      const value = weight(outline.span(child));
      if (value > bestWeight) {
        best = child;
        bestWeight = value;
      }
    }
    if (best === -1) break;
    index = best;
  }
  return outline.sorted[index] as D;
}
