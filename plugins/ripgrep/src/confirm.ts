/**
 * rg opens the files it searches by path. With `--no-follow` it never walks into a
 * link, but a file swapped for a link between rg reading its directory and opening
 * it is read through the link — rg's own check-then-open race, which no flag closes.
 * So before a snippet is returned, its file is opened through the framework's
 * root-confined reader (no link followed, the opened file located under the root)
 * and the bytes at rg's offsets must be the snippet's text: what ships is then the
 * root's own file, whatever rg happened to open. A refused file is dropped with a
 * warning; a file changed since rg read it is dropped quietly (the next query sees
 * it as it is now).
 *
 * Synchronous on purpose: rg has just read these files, so they are in the page cache,
 * and a few small reads cost far less CPU than as many round trips through the thread
 * pool would.
 */
import type { Candidate, Logger } from "ocp-provider";
import { isFileRefused, type OpenedFile, type RootReader } from "ocp-provider/fs";
import type { SnippetOrigin, SnippetResult } from "./snippets.js";

/** The candidates whose lines were found in the file as the reader opened it, in order, and how many were not. */
export interface ConfirmedSnippets {
  readonly candidates: Candidate[];
  readonly dropped: number;
}

/**
 * Confirms every candidate of `result` against its file (see the module comment).
 * @param maxLineBytes the collector's line limit: no line that ships is longer
 */
export function confirmSnippets(
  result: SnippetResult,
  reader: RootReader,
  maxLineBytes: number,
  log: Logger,
): ConfirmedSnippets {
  const byFile = new Map<string, number[]>();
  result.origins.forEach((origin, index) => {
    const key = typeof origin.path === "string" ? `t${origin.path}` : `b${origin.path.toString("latin1")}`;
    const indexes = byFile.get(key);
    if (indexes === undefined) byFile.set(key, [index]);
    else indexes.push(index);
  });
  const confirmed = new Array<boolean>(result.candidates.length).fill(false);
  for (const indexes of byFile.values()) {
    const { path } = result.origins[indexes[0] as number] as SnippetOrigin;
    let file: OpenedFile;
    try {
      file = reader.openSync(path);
    } catch (error) {
      if (isFileRefused(error)) log.warn(`skipped ${String(path)}: ${error.code}: ${error.message}`);
      else log.debug(`${String(path)} could not be re-opened to confirm its snippets: ${String(error)}`);
      continue;
    }
    try {
      for (const index of indexes) {
        const candidate = result.candidates[index] as Candidate;
        confirmed[index] = holds(file, candidate.content, result.origins[index] as SnippetOrigin, maxLineBytes);
      }
    } catch (error) {
      log.debug(`${String(path)} could not be read to confirm its snippets: ${String(error)}`);
    } finally {
      file.close();
    }
  }
  const candidates = result.candidates.filter((_, index) => confirmed[index]);
  const dropped = result.candidates.length - candidates.length;
  if (dropped > 0) log.debug(`${dropped} snippet(s) dropped: their files no longer hold the lines rg reported`);
  return { candidates, dropped };
}

/** True if `file` holds, from `origin.offset` to the end of the line at `origin.lastOffset`, exactly `content`. */
function holds(file: OpenedFile, content: string, origin: SnippetOrigin, maxLineBytes: number): boolean {
  const { offset, lastOffset } = origin;
  if (offset < 0 || lastOffset < offset) return false;
  // The last line is at most maxLineBytes long, terminator included, or it would not have shipped.
  const bytes = file.readAt(offset, lastOffset - offset + maxLineBytes);
  const newline = bytes.indexOf(0x0a, lastOffset - offset);
  const lines = newline === -1 ? bytes : bytes.subarray(0, newline + 1);
  // Decoded as the collector decodes a line that is not UTF-8 (U+FFFD), which changes nothing for one that is.
  return lines.toString("utf8") === content;
}
