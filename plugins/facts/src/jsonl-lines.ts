/**
 * Lines of a JSONL stream, each at most {@link MAX_LINE} characters held in memory.
 *
 * `readline` keeps a line until it ends, however long: a 600 MB line without a newline
 * grew one string past V8's limit and the import died with `RangeError: Invalid string
 * length` and a stack. Here a line longer than the bound is counted, not kept, and
 * comes out as `{ number, length }` without its text, so the import can name it among
 * the bad lines and go on checking the rest. Lines end as readline ends them with
 * `crlfDelay: Infinity`: at `\n`, `\r\n` (even split across chunks) or a lone `\r`.
 */

/**
 * The longest line an import reads: 1,048,576 characters (UTF-16 code units). No fact
 * record comes near it: the longest statement (65,536 characters), every character
 * written as a `\uXXXX` escape, is 393,216, and every other field is short.
 */
export const MAX_LINE = 1_048_576;

/** One line: its text, or, for a line over the bound, only its length. Numbers count from 1. */
export type JsonlLine =
  | { readonly number: number; readonly text: string; readonly length?: undefined }
  | { readonly number: number; readonly text?: undefined; readonly length: number };

const BREAK = /\r\n|\n|\r/g;

/** Splits decoded text chunks into lines, holding at most `max` characters of any one line. */
export async function* splitLines(chunks: AsyncIterable<string>, max = MAX_LINE): AsyncGenerator<JsonlLine> {
  let parts: string[] = [];
  let length = 0;
  let number = 0;
  let afterCr = false; // the previous chunk ended with \r: a \n opening this one ends nothing more
  const take = (chunk: string, start: number, end: number) => {
    if (length + (end - start) > max) parts = [];
    else if (end > start) parts.push(chunk.slice(start, end));
    length += end - start;
  };
  const line = (): JsonlLine => {
    number++;
    const done: JsonlLine =
      length > max ? { number, length } : { number, text: parts.length === 1 ? (parts[0] as string) : parts.join("") };
    parts = [];
    length = 0;
    return done;
  };
  for await (const chunk of chunks) {
    if (chunk.length === 0) continue;
    let start = afterCr && chunk.charCodeAt(0) === 10 ? 1 : 0;
    afterCr = false;
    const breaks = new RegExp(BREAK);
    breaks.lastIndex = start;
    for (let match = breaks.exec(chunk); match !== null; match = breaks.exec(chunk)) {
      take(chunk, start, match.index);
      yield line();
      start = breaks.lastIndex;
      if (start === chunk.length && match[0] === "\r") afterCr = true;
    }
    take(chunk, start, chunk.length);
  }
  if (length > 0) yield line();
}
