/**
 * Line arithmetic shared by the packer and by plugins that cite line ranges.
 *
 * Convention: the content of a line range is the exact text of those lines,
 * each with its own terminator (`\n` or `\r\n`), so a cut prefix of whole lines
 * is itself the content of a shorter range and its digest can be checked against
 * the source.
 */

/** A 1-based, inclusive range of lines of a source. */
export interface LineRange {
  start: number;
  end: number;
}

/** Offsets just past each line terminator, in order; the text's end counts as one when it does not end in `\n`. */
export function lineEnds(text: string): number[] {
  const ends: number[] = [];
  let at = text.indexOf("\n");
  while (at !== -1) {
    ends.push(at + 1);
    at = text.indexOf("\n", at + 1);
  }
  if (ends.length === 0 || ends[ends.length - 1] !== text.length) {
    if (text.length > 0) ends.push(text.length);
  }
  return ends;
}

/** The number of lines in `text` under the convention above (`"a\nb"` and `"a\nb\n"` both have two). */
export function countLines(text: string): number {
  return lineEnds(text).length;
}

/**
 * The text of lines `first..last` (1-based, inclusive) of `text`, terminators kept.
 * Slicing at `\n` never splits a UTF-16 surrogate pair, so never a UTF-8 character.
 */
export function sliceLines(text: string, first: number, last: number): string {
  const ends = lineEnds(text);
  if (first < 1 || last < first || first > ends.length) return "";
  const start = first === 1 ? 0 : (ends[first - 2] as number);
  const end = ends[Math.min(last, ends.length) - 1] as number;
  return text.slice(start, end);
}
