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
import type { Candidate, LineRange, Logger } from "ocp-provider";
import { isFileRefused, type OpenedFile, type RootReader } from "ocp-provider/fs";
import type { SnippetOrigin, SnippetResult } from "./snippets.js";
import { FileText, type ViewOptions, viewRanges } from "./views.js";

/** Which snippets get larger views, and how large (see views.ts). */
export interface ViewSettings extends Omit<ViewOptions, "isBlocked"> {
  /** Snippets ranked below this many (the packer's field is the best `max_frames`) get none. */
  readonly deep: number;
  /** A file larger than this is not read whole: its snippets get no views. */
  readonly maxFileBytes: number;
}

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
  views?: ViewSettings,
): ConfirmedSnippets {
  const byFile = new Map<string, number[]>();
  result.origins.forEach((origin, index) => {
    const key = typeof origin.path === "string" ? `t${origin.path}` : `b${origin.path.toString("latin1")}`;
    const indexes = byFile.get(key);
    if (indexes === undefined) byFile.set(key, [index]);
    else indexes.push(index);
  });
  const confirmed = new Array<boolean>(result.candidates.length).fill(false);
  const folded = new Array<boolean>(result.candidates.length).fill(false);
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
      const deep = views !== undefined && (indexes[0] as number) < views.deep && file.stats.size <= views.maxFileBytes;
      if (deep) {
        // Read whole: the snippets are confirmed against it, and their views cut from it.
        const bytes = file.readAt(0, file.stats.size);
        for (const index of indexes) {
          const candidate = result.candidates[index] as Candidate;
          confirmed[index] = holdsIn(bytes, candidate.content, result.origins[index] as SnippetOrigin, maxLineBytes);
        }
        addViews(result, indexes, confirmed, folded, bytes, maxLineBytes, views);
      } else {
        for (const index of indexes) {
          const candidate = result.candidates[index] as Candidate;
          confirmed[index] = holds(file, candidate.content, result.origins[index] as SnippetOrigin, maxLineBytes);
        }
      }
    } catch (error) {
      log.debug(`${String(path)} could not be read to confirm its snippets: ${String(error)}`);
    } finally {
      file.close();
    }
  }
  const candidates = result.candidates.filter((_, index) => confirmed[index] && !folded[index]);
  const dropped = confirmed.filter((ok) => !ok).length;
  if (dropped > 0) log.debug(`${dropped} snippet(s) dropped: their files no longer hold the lines rg reported`);
  return { candidates, dropped };
}

/**
 * Gives the best confirmed snippet of a file (the first of `indexes`) its larger views
 * and pointer line, and marks the file's other snippets it folds in: they are one region now.
 */
function addViews(
  result: SnippetResult,
  indexes: readonly number[],
  confirmed: readonly boolean[],
  folded: boolean[],
  bytes: Buffer,
  maxLineBytes: number,
  settings: ViewSettings,
): void {
  const ok = indexes.filter((index) => confirmed[index]);
  const best = ok[0];
  if (best === undefined) return;
  const candidate = result.candidates[best] as Candidate;
  const origin = result.origins[best] as SnippetOrigin;
  const window = candidate.range as LineRange;
  candidate.pointerLine = origin.bestLine;
  const text = new FileText(bytes.toString("utf8"));
  const others = ok.slice(1).map((index) => result.candidates[index]?.range as LineRange);
  const plan = viewRanges(text, window, others, {
    ...settings,
    // A line over maxLineBytes (terminator included) never ships, in a view neither.
    isBlocked: (line) => Buffer.byteLength(text.slice(line, line)) > maxLineBytes,
  });
  if (plan.views.length === 0) return;
  candidate.resolutions = plan.views.map((range) => ({
    content: text.slice(range.start, range.end),
    range,
    relevance: origin.rescore(range),
  }));
  for (const index of plan.folded) folded[ok[index + 1] as number] = true;
}

/** {@link holds} over the whole file's bytes. */
function holdsIn(bytes: Buffer, content: string, origin: SnippetOrigin, maxLineBytes: number): boolean {
  const { offset, lastOffset } = origin;
  if (offset < 0 || lastOffset < offset || lastOffset >= bytes.length) return false;
  const newline = bytes.indexOf(0x0a, lastOffset);
  const end = newline === -1 ? bytes.length : newline + 1;
  if (end - lastOffset > maxLineBytes) return false;
  return bytes.toString("utf8", offset, end) === content;
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
