/**
 * Enclosing blocks, language-agnostic: what a match sits in, read from indentation and
 * bracket structure alone, so any language a repository holds gets it and no parser runs
 * (ripgrep stays fast).
 *
 * A block around lines a..b is found from the least indentation among them:
 * - if a line above is indented less (comments aside), it is the block's **header** —
 *   `function f() {`, `def f():`, `if (x) {`, `describe('…', () => {` — and the block
 *   runs from it over every line indented more, then over the closing lines at the
 *   header's own indentation (`}`, `})`, `} else {` and its body, `end`);
 * - otherwise the lines are at the top of their indentation, and the block is the whole
 *   statements they belong to (a top-level function from its head to its closing brace).
 * A header that itself closes something (`) => {` of a multi-line signature, `} else {`)
 * belongs to what it closes: the block starts where that opened. Comments and decorators
 * right above the header (`/** … *\/`, `//`, `#`, `@decorator`) belong to it.
 *
 * A block whose brackets do not balance (outside strings and line comments) is a guess
 * gone wrong — a dedented template literal, a generated file — and ends the chain: no
 * block is offered past indentation that the brackets contradict.
 */
import type { LineRange } from "ocp-provider";

/** The lines of one file, 1-based, without terminators. */
export interface BlockSource {
  /** The number of lines. */
  readonly lineCount: number;
  /** Line `line`'s text without its terminator (1 ≤ line ≤ lineCount). */
  text(line: number): string;
}

/** Options of {@link enclosingBlocks}. */
export interface BlockOptions {
  /** The most blocks returned (innermost first). Default 8. */
  maxDepth?: number;
  /** The most lines looked at above and below the range while finding one block. Default 4000. */
  maxScan?: number;
}

/** Lines that close a construct opened above, at the opener's indentation. */
const CLOSER = /^\s*(?:[}\])]|end\b|fi\b|done\b|esac\b)/;
/** Lines that are a comment or a decorator, never a header. */
const COMMENT = /^\s*(?:\/\/|\/\*|\*|#|--|<!--)/;
/** Lines above a header that belong to it. */
const ATTACHED = /^\s*(?:\/\/|\/\*|\*|#|@|"""|''')/;
const TAB_WIDTH = 4;

/** The indentation of a line (a tab counts 4), or undefined when it is blank. */
export function indentation(text: string): number | undefined {
  let width = 0;
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i);
    if (char === 0x20) width++;
    else if (char === 0x09) width += TAB_WIDTH;
    else if (char === 0x0d || char === 0x0c || char === 0x0b) continue;
    else return width;
  }
  return undefined;
}

/** Quoted strings and line comments, which hold brackets that are not structure. */
const NOT_CODE = /(["'`])(?:\\.|(?!\1).)*\1|\/\/.*$|#.*$/g;

/** The net count of opening brackets over lines `start..end`, strings and line comments aside. */
export function bracketBalance(source: BlockSource, start: number, end: number): number {
  let net = 0;
  for (let line = start; line <= end; line++) {
    const code = source.text(line).replace(NOT_CODE, "");
    for (let i = 0; i < code.length; i++) {
      const char = code[i];
      if (char === "{" || char === "(" || char === "[") net++;
      else if (char === "}" || char === ")" || char === "]") net--;
    }
  }
  return net;
}

/**
 * The blocks that enclose `range`, innermost first, each holding the one before and
 * more; none is the range itself. Stops at the outermost block (the whole file is not a
 * block: a caller offers it apart), at `maxDepth`, or at a block whose brackets do not
 * balance.
 */
export function enclosingBlocks(source: BlockSource, range: LineRange, options: BlockOptions = {}): LineRange[] {
  const maxDepth = options.maxDepth ?? 8;
  const maxScan = options.maxScan ?? 4000;
  const start = Math.max(1, Math.min(range.start, source.lineCount));
  const end = Math.max(start, Math.min(range.end, source.lineCount));
  const blocks: LineRange[] = [];
  let current: LineRange = { start, end };
  while (blocks.length < maxDepth) {
    const found = enclosingBlock(source, current, maxScan);
    if (found === undefined) break;
    // Never less than what it encloses, whatever the indentation says.
    const next = { start: Math.min(found.start, current.start), end: Math.max(found.end, current.end) };
    if (next.start === current.start && next.end === current.end) break;
    if (bracketBalance(source, next.start, next.end) !== 0) break;
    blocks.push(next);
    current = next;
  }
  return blocks;
}

/** The least indentation among the non-blank, non-comment lines of `range` (of any non-blank line if all are comments). */
function baseIndentation(source: BlockSource, range: LineRange): number | undefined {
  let code: number | undefined;
  let any: number | undefined;
  for (let line = range.start; line <= range.end; line++) {
    const text = source.text(line);
    const width = indentation(text);
    if (width === undefined) continue;
    any = Math.min(any ?? width, width);
    if (!COMMENT.test(text)) code = Math.min(code ?? width, width);
  }
  return code ?? any;
}

/** The one block around `range` (see the module comment), or undefined when nothing encloses it. */
function enclosingBlock(source: BlockSource, range: LineRange, maxScan: number): LineRange | undefined {
  const base = baseIndentation(source, range);
  if (base === undefined) return undefined;
  const floor = Math.max(1, range.start - maxScan);
  const ceiling = Math.min(source.lineCount, range.end + maxScan);
  let header: number | undefined;
  for (let line = range.start - 1; line >= floor && base > 0; line--) {
    const text = source.text(line);
    const width = indentation(text);
    if (width === undefined || COMMENT.test(text)) continue;
    if (width < base) {
      header = line;
      break;
    }
  }
  let start: number;
  let level: number;
  if (header !== undefined) {
    level = indentation(source.text(header)) as number;
    start = opener(source, header, level, floor);
  } else {
    // The top of its indentation: back to the start of the statement the range's first line is in.
    level = base;
    start = range.start;
    for (let line = range.start; line >= floor; line--) {
      const text = source.text(line);
      const width = indentation(text);
      // A comment starts a statement only where the range does: above it, it belongs to what follows it.
      if (width !== undefined && width <= base && !CLOSER.test(text) && (line === range.start || !COMMENT.test(text))) {
        start = line;
        break;
      }
    }
  }
  // Down over the body (lines indented more) and the closers at the header's level.
  let end = range.end;
  let line = range.end + 1;
  while (line <= ceiling) {
    const text = source.text(line);
    const width = indentation(text);
    if (width !== undefined && width <= level && !(width === level && CLOSER.test(text))) break;
    if (width !== undefined) end = line;
    line++;
  }
  return { start: attached(source, start, level, floor), end };
}

/**
 * A header that closes something (`) => {`, `} else {`) starts where that opened: the
 * nearest line above at its indentation that does not close, unless something less
 * indented comes first.
 */
function opener(source: BlockSource, header: number, level: number, floor: number): number {
  if (!CLOSER.test(source.text(header))) return header;
  for (let line = header - 1; line >= floor; line--) {
    const text = source.text(line);
    const width = indentation(text);
    if (width === undefined || width > level || COMMENT.test(text)) continue;
    if (width < level) return header;
    if (!CLOSER.test(text)) return line;
  }
  return header;
}

/** The first line of the comments and decorators right above `start` at its indentation (or one more: ` * @param`). */
function attached(source: BlockSource, start: number, level: number, floor: number): number {
  let first = start;
  for (let line = start - 1; line >= floor; line--) {
    const text = source.text(line);
    const width = indentation(text);
    if (width === undefined || width < level || width > level + 1 || !ATTACHED.test(text)) break;
    first = line;
  }
  return first;
}
