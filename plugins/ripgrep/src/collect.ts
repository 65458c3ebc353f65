/**
 * Reading `rg --json`: per file, the lines rg returned (matches and context) with
 * their exact text, kept only once the file's `end` message has arrived — so a
 * search stopped early never yields a half-read file.
 *
 * rg writes `{ "text": … }` for UTF-8 and `{ "bytes": <base64> }` otherwise, for
 * paths and for lines alike. Non-UTF-8 lines are decoded with U+FFFD replacement
 * (and flagged); non-UTF-8 paths keep their bytes so the file's URI is exact.
 *
 * This is the hot path of a search (tens of MB of JSON on a large tree, much of it
 * minified lines that will never ship), so match and context messages are read
 * from the bytes: only the line's own JSON string is decoded, and a line too long
 * to ship is never decoded at all. Anything not shaped as expected falls back to
 * `JSON.parse` of the whole message.
 */

import { type FileLines, LineSlab, LineTable, plainLineBytes } from "./line-table.js";

export type { FileLines, LineRecord } from "./line-table.js";

/** What rg found in one file. */
export interface FileMatches {
  /** Root-relative path with `/` separators (U+FFFD for bytes that are not UTF-8). */
  readonly path: string;
  /** The path's raw bytes when it is not valid UTF-8 (so it can be encoded exactly in a URI). */
  readonly pathBytes: Buffer | undefined;
  /** Every line rg returned, by line number. */
  readonly lines: FileLines;
  /** Match lines, ascending. */
  readonly matchLines: readonly number[];
  /** The highest line number rg returned (rg returns context up to the end of the file). */
  readonly lastLine: number;
}

/** Options of {@link RgJsonCollector}. */
export interface CollectorOptions {
  /** Lines longer than this many UTF-8 bytes are kept as blocked, without their text. */
  maxLineBytes: number;
  /**
   * The most match lines kept: past it, the weakest files (by `score`, then by path) are
   * dropped. rg is never stopped at the cap: which files are in hand at a given count
   * depends on the order rg's threads finish them, and a search must give the same
   * answer every time.
   */
  maxMatches: number;
  /**
   * A complete file's weight, higher is better (default: its match lines). It must read
   * the file alone, so the files kept do not depend on the order they arrive in.
   */
  score?: (file: FileMatches) => number;
  /**
   * Where the lines of this search are held (default: a slab of its own). A slab from a
   * {@link LineSlabPool} is given back only once nothing reads the files' lines any more.
   */
  slab?: LineSlab;
}

/** A kept file and its weight. */
interface Kept {
  readonly file: FileMatches;
  readonly score: number;
}

/** Best first: higher weight, then the smaller path (a total order, so the choice is the same every time). */
function better(a: Kept, b: Kept): number {
  if (a.score !== b.score) return b.score - a.score;
  return byPath(a.file, b.file);
}

/**
 * Orders files by path, then by raw path bytes: two names that are not UTF-8 can decode
 * to the same text (U+FFFD), and without the bytes their order would be rg's finishing order.
 */
function byPath(a: FileMatches, b: FileMatches): number {
  if (a.path !== b.path) return a.path < b.path ? -1 : 1;
  if (a.pathBytes === undefined || b.pathBytes === undefined) return a.pathBytes ? 1 : b.pathBytes ? -1 : 0;
  return Buffer.compare(a.pathBytes, b.pathBytes);
}

interface Data {
  text?: string;
  bytes?: string;
}

interface Pending {
  /** The raw JSON of the path object, as rg wrote it: the key of every message about this file. */
  key: Buffer;
  path: string;
  pathBytes: Buffer | undefined;
  lines: LineTable;
  matchLines: number[];
  lastLine: number;
}

const BEGIN = Buffer.from('{"type":"begin","data":{"path":');
const MATCH = Buffer.from('{"type":"match","data":{"path":');
const CONTEXT = Buffer.from('{"type":"context","data":{"path":');
// A JSON string escapes every `"` inside it, so these never occur inside one: each marks structure.
const LINES_TEXT = Buffer.from(',"lines":{"text":');
const LINES_BYTES = Buffer.from(',"lines":{"bytes":');
const END = Buffer.from('{"type":"end","data":{"path":');
/** How a path that is UTF-8 starts its JSON (else `{"bytes":`). */
const PATH_TEXT = Buffer.from('{"text":"');
const BINARY_OFFSET = Buffer.from(',"binary_offset":');
const NULL_VALUE = Buffer.from("null,");
/** Ends a match or context line's text and starts its line number. */
export const LINE_NUMBER = Buffer.from('},"line_number":');
/** Follows the line number: the line's byte offset in the file. */
const ABSOLUTE_OFFSET = Buffer.from(',"absolute_offset":');
/** How a message of a line without submatches (a context line) ends. */
const NO_SUBMATCHES = Buffer.from(',"submatches":[]}}');

/**
 * True if `line` holds `prefix` at `at`, ending by `end`. A plain loop: for these short
 * markers, cheaper than a native call (and small enough to be inlined).
 */
function startsWith(line: Buffer, prefix: Buffer, at = 0, end = line.length): boolean {
  if (end < at + prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (line[at + i] !== prefix[i]) return false;
  return true;
}

/**
 * {@link startsWith} for a file's path key, which every line of the file repeats: keys
 * are 60-100 bytes under node_modules, where a native compare (~80 ns a call) beats the
 * loop (~2 ns a byte).
 */
function keyAt(line: Buffer, key: Buffer, at: number, end: number): boolean {
  const length = key.length;
  if (end < at + length) return false;
  return length < 40 ? startsWith(line, key, at, end) : line.compare(key, 0, length, at, at + length) === 0;
}

function decodePath(data: Data | undefined): { text: string; bytes?: Buffer } {
  if (typeof data?.text === "string") return { text: data.text };
  const bytes = Buffer.from(data?.bytes ?? "", "base64");
  return { text: bytes.toString("utf8"), bytes };
}

/** The decimal number written at `at`, or 0 if there is none. */
function readNumber(line: Buffer, at: number, limit = line.length): number {
  let number = 0;
  for (let i = at; i < limit; i++) {
    const digit = (line[i] as number) - 0x30;
    if (digit < 0 || digit > 9) break;
    number = number * 10 + digit;
  }
  return number;
}

/** The `absolute_offset` after the line number written at `at`, or -1 if it is not there. */
function readOffset(line: Buffer, at: number, limit = line.length): number {
  let end = at;
  while (end < limit && (line[end] as number) >= 0x30 && (line[end] as number) <= 0x39) end++;
  return startsWith(line, ABSOLUTE_OFFSET, end, limit) ? readNumber(line, end + ABSOLUTE_OFFSET.length, limit) : -1;
}

/** `found` (an index of `marker`) if the marker ends by `end`, else -1: a search from inside a line may run past it. */
function within(found: number, marker: Buffer, end: number): number {
  return found !== -1 && found + marker.length <= end ? found : -1;
}

function stripDotSlash(bytes: Buffer): Buffer {
  return bytes[0] === 0x2e && bytes[1] === 0x2f ? bytes.subarray(2) : bytes;
}

/**
 * Collects rg's JSON messages into {@link FileMatches}, one complete file at a time,
 * keeping the best files under the match cap whatever order rg finishes them in: a
 * file is kept unless it ranks below one already dropped, and once the kept files hold
 * more than the cap, the weakest go. What is left is exactly the best files, in rank
 * order, that fit the cap together — the same set for any arrival order.
 */
export class RgJsonCollector {
  #kept: Kept[] = [];
  /** The best file dropped so far: anything ranking below it is dropped too. */
  #threshold: Kept | undefined;
  /** Match lines in the kept files. */
  matches = 0;
  /** Files dropped by the match cap. */
  dropped = 0;
  /** Lines that were not JSON or not rg messages (never expected; counted for diagnostics). */
  malformed = 0;
  /** Files dropped because rg found them binary after reporting matches. */
  binary = 0;
  readonly #pending = new Map<string, Pending>();
  /** The file of the last `begin`: rg writes each file's messages together, so nearly always this one. */
  #current: Pending | undefined;
  readonly #options: CollectorOptions;
  readonly #slab: LineSlab;

  constructor(options: CollectorOptions) {
    this.#options = options;
    this.#slab = options.slab ?? new LineSlab();
  }

  /** Never true: the collector reads all of rg's output (see {@link CollectorOptions.maxMatches}). */
  get full(): boolean {
    return false;
  }

  /** The kept files, ordered by path (so nothing downstream depends on the order rg finished them). */
  get files(): FileMatches[] {
    this.#sorted ??= this.#kept.map((kept) => kept.file).sort(byPath);
    return this.#sorted;
  }
  /** {@link files}, sorted once until the next file is kept. */
  #sorted: FileMatches[] | undefined;

  /**
   * Bytes of line text held for the kept files and those still arriving: bounded by the
   * match cap, not by how much rg prints (a dropped file's lines are compacted away).
   */
  get heldBytes(): number {
    return this.#slab.heldBytes;
  }

  /** Takes one line of rg's output (without its newline); always true (rg may go on). */
  push(line: Buffer): boolean {
    return this.pushRange(line, 0, line.length);
  }

  /**
   * Takes the line of rg's output at `chunk[start, end)` (without its newline), read in
   * place: a view per line would be an object per line. Always true (rg may go on).
   */
  pushRange(chunk: Buffer, start: number, end: number): boolean {
    const valueStart = this.#locate(chunk, start, end);
    if (valueStart !== -1 ? this.#fastLine(chunk, end, valueStart) : this.#fastOther(chunk, start, end)) return true;
    this.#message(chunk.subarray(start, end));
    return true;
  }

  /** Keeps a complete file if it ranks among the best that fit the cap (see the class comment). */
  #keep(file: FileMatches): void {
    this.#sorted = undefined;
    const entry = { file, score: this.#options.score?.(file) ?? file.matchLines.length };
    if (this.#threshold !== undefined && better(entry, this.#threshold) > 0) {
      this.dropped++;
      (file.lines as LineTable).discard();
      return;
    }
    this.#kept.push(entry);
    this.matches += file.matchLines.length;
    if (this.matches <= this.#options.maxMatches) return;
    this.#kept.sort(better);
    while (this.matches > this.#options.maxMatches) {
      const worst = this.#kept.pop() as Kept;
      this.matches -= worst.file.matchLines.length;
      this.dropped++;
      (worst.file.lines as LineTable).discard();
      if (this.#threshold === undefined || better(worst, this.#threshold) < 0) this.#threshold = worst;
    }
  }

  /**
   * For a line still arriving: true if what has arrived (`head`) already proves it a
   * match or context line too long to ship, so the rest need not be kept — only its
   * line number, given to {@link pushLong}.
   */
  acceptsLong(head: Buffer): boolean {
    const valueStart = this.#locate(head, 0, head.length);
    // No whole marker does not mean the value is still open: its closing quote and all but
    // the last byte of the marker may already have arrived, so they are not counted as value.
    return (
      valueStart !== -1 &&
      head.indexOf(LINE_NUMBER, valueStart) === -1 &&
      head.length - valueStart - 1 - LINE_NUMBER.length > 6 * this.#options.maxLineBytes
    );
  }

  /** Records a line {@link acceptsLong} accepted: blocked, at `number`. Returns false once the cap is reached. */
  pushLong(head: Buffer, number: number): boolean {
    if (this.#locate(head, 0, head.length) === -1 || number < 1) this.malformed++;
    else {
      // A `bytes` line is lossy however long, as when it is read whole.
      this.#record(this.#at.file as Pending, number, this.#at.match);
      (this.#at.file as Pending).lines.addText(number, this.#at.match, this.#at.bytes, -1, undefined);
    }
    return !this.full;
  }

  /** What {@link #locate} found last; reused rather than allocated, since it runs for every line. */
  readonly #at: { file: Pending | undefined; match: boolean; bytes: boolean } = {
    file: undefined,
    match: false,
    bytes: false,
  };

  /**
   * For a match or context message, where its line's JSON value starts (its file and
   * kind left in {@link #at}); -1 for any other message or an unexpected shape. The
   * message is `line[start, end)`.
   */
  #locate(line: Buffer, start: number, end: number): number {
    // Byte 9 tells the message types apart: {"type":"match"… / {"type":"context"….
    const kind = line[start + 9];
    const match = kind === 0x6d && startsWith(line, MATCH, start, end);
    if (!match && !(kind === 0x63 && startsWith(line, CONTEXT, start, end))) return -1;
    const at = start + (match ? MATCH.length : CONTEXT.length);
    const current = this.#current;
    let file: Pending | undefined;
    let after: number;
    if (current !== undefined && keyAt(line, current.key, at, end)) {
      file = current;
      after = at + current.key.length;
    } else {
      after = within(line.indexOf(LINES_TEXT, at), LINES_TEXT, end);
      if (after === -1) after = within(line.indexOf(LINES_BYTES, at), LINES_BYTES, end);
      if (after === -1) return -1;
      file = this.#pending.get(line.toString("latin1", at, after));
    }
    if (file === undefined) return -1;
    this.#at.file = file;
    this.#at.match = match;
    if (startsWith(line, LINES_TEXT, after, end)) {
      this.#at.bytes = false;
      return after + LINES_TEXT.length;
    }
    if (startsWith(line, LINES_BYTES, after, end)) {
      this.#at.bytes = true;
      return after + LINES_BYTES.length;
    }
    return -1;
  }

  /**
   * A match or context message ending at `end`, read from its bytes; false if it is not
   * shaped as expected (nothing recorded: the caller reads it with `JSON.parse`).
   */
  #fastLine(line: Buffer, end: number, valueStart: number): boolean {
    const { file, match, bytes } = this.#at;
    let valueEnd = this.#readTrailer(line, valueStart, end);
    let number = this.#trailer.number;
    let offset = this.#trailer.offset;
    if (valueEnd === -1) {
      valueEnd = within(line.indexOf(LINE_NUMBER, valueStart), LINE_NUMBER, end);
      number = valueEnd === -1 ? 0 : readNumber(line, valueEnd + LINE_NUMBER.length, end);
      offset = valueEnd === -1 ? -1 : readOffset(line, valueEnd + LINE_NUMBER.length, end);
    }
    if (number === 0 || offset === -1 || file === undefined) return false;
    const { maxLineBytes } = this.#options;
    // The JSON of a text is at least as long as its UTF-8 (non-ASCII is written raw) and
    // at most six times as long (\u00XX escapes): often the length alone decides.
    const jsonLength = valueEnd - valueStart - 2;
    this.#record(file, number, match);
    if (bytes) {
      const decoded = Buffer.from(line.toString("latin1", valueStart + 1, valueEnd - 1), "base64");
      const text = decoded.length > maxLineBytes ? undefined : decoded.toString("utf8");
      file.lines.addText(number, match, true, offset, text);
    } else if (jsonLength > 6 * maxLineBytes) {
      file.lines.addText(number, match, false, -1, undefined);
    } else if (jsonLength <= maxLineBytes) {
      // Kept as JSON and decoded only if read: most context lines never are (see line-table.ts).
      file.lines.addJson(number, match, offset, line, valueStart, valueEnd);
    } else {
      // Between the two bounds: the text's own length decides, read from the bytes when they are plain.
      const plainBytes = plainLineBytes(line, valueStart, valueEnd);
      if (plainBytes !== -1) {
        if (plainBytes > maxLineBytes) file.lines.addText(number, match, false, -1, undefined);
        else file.lines.addJson(number, match, offset, line, valueStart, valueEnd);
      } else {
        const text = JSON.parse(line.toString("utf8", valueStart, valueEnd)) as string;
        const long = Buffer.byteLength(text) > maxLineBytes;
        file.lines.addText(number, match, false, long ? -1 : offset, long ? undefined : text);
      }
    }
    return true;
  }

  /** What {@link #readTrailer} read last; reused rather than allocated. */
  readonly #trailer = { number: 0, offset: -1 };

  /**
   * A line without submatches (a context line) ends `…},"line_number":N,"absolute_offset":M,"submatches":[]}}`:
   * read from the end, that gives where its value ends (and N and M into {@link #trailer})
   * without searching the line's text for the marker. -1 for any other ending (a match
   * line's submatches): the caller searches from the value's start. Both find the same
   * marker: it holds a quote, so it cannot occur inside the value's string.
   */
  #readTrailer(line: Buffer, valueStart: number, end: number): number {
    let at = end - NO_SUBMATCHES.length;
    if (at <= valueStart || !startsWith(line, NO_SUBMATCHES, at, end)) return -1;
    let digits = at;
    while (digits > valueStart && (line[digits - 1] as number) >= 0x30 && (line[digits - 1] as number) <= 0x39)
      digits--;
    if (digits === at) return -1;
    this.#trailer.offset = readNumber(line, digits, at);
    at = digits - ABSOLUTE_OFFSET.length;
    if (at <= valueStart || !startsWith(line, ABSOLUTE_OFFSET, at, end)) return -1;
    digits = at;
    while (digits > valueStart && (line[digits - 1] as number) >= 0x30 && (line[digits - 1] as number) <= 0x39)
      digits--;
    if (digits === at) return -1;
    this.#trailer.number = readNumber(line, digits, at);
    at = digits - LINE_NUMBER.length;
    return at >= valueStart && startsWith(line, LINE_NUMBER, at, end) ? at : -1;
  }

  /** Counts a line into its file's match lines and last line (its text is recorded by the caller). */
  #record(file: Pending, number: number, match: boolean): void {
    if (match) file.matchLines.push(number);
    if (number > file.lastLine) file.lastLine = number;
  }

  /** Any other message (begin, end, summary), or a match/context message the fast path did not recognise. */
  #message(line: Buffer): void {
    let message: { type?: string; data?: Record<string, unknown> };
    try {
      message = JSON.parse(line.toString("utf8"));
    } catch {
      this.malformed++;
      return;
    }
    const data = message.data;
    if (typeof data !== "object" || data === null || typeof data.path !== "object") return;
    const key = JSON.stringify(data.path);
    switch (message.type) {
      case "begin":
        this.#slowBegin(line, key, data.path as Data);
        break;
      case "match":
      case "context":
        this.#slowLine(key, data, message.type === "match");
        break;
      case "end":
        this.#end(key, data);
        break;
    }
  }

  /** A `begin` or `end` message read from its bytes when it is shaped as rg writes it; false if not. */
  #fastOther(line: Buffer, start: number, end: number): boolean {
    return line[start + 9] === 0x62 ? this.#fastBegin(line, start, end) : this.#fastEnd(line, start, end);
  }

  /**
   * A `begin` message whose path is a JSON string without escapes
   * (`{"type":"begin","data":{"path":{"text":"<path>"}}}`), read from its bytes: one per
   * file, so `JSON.parse` of it was a few per cent of a search of many small files.
   * Without a backslash the bytes are the text (rg writes non-ASCII as is, and escapes
   * every quote and control character). False for anything else: the caller parses it.
   */
  #fastBegin(line: Buffer, start: number, end: number): boolean {
    const keyStart = start + BEGIN.length;
    const textStart = keyStart + PATH_TEXT.length;
    // The key is `{"text":"<path>"}`, closed by the two braces of data and of the message.
    if (end - textStart < 4 || !startsWith(line, BEGIN, start, end) || !startsWith(line, PATH_TEXT, keyStart, end)) {
      return false;
    }
    if (line[end - 1] !== 0x7d || line[end - 2] !== 0x7d || line[end - 3] !== 0x7d || line[end - 4] !== 0x22) {
      return false;
    }
    const textEnd = end - 4;
    const slash = line.indexOf(0x5c, textStart);
    if (slash !== -1 && slash < textEnd) return false;
    this.#begin(line.toString("utf8", textStart, textEnd), undefined, line.subarray(keyStart, end - 2));
    return true;
  }

  /** A file's `begin` from its parsed message (see {@link #fastBegin} for the common shape). */
  #slowBegin(line: Buffer, key: string, raw: Data): void {
    const { text, bytes } = decodePath(raw);
    // The path JSON exactly as rg wrote it (`{"type":"begin","data":{"path":<this>}}`): later messages repeat it.
    const rawKey =
      startsWith(line, BEGIN) && line.length >= BEGIN.length + 2
        ? line.subarray(BEGIN.length, line.length - 2)
        : Buffer.from(key);
    this.#begin(text, bytes, rawKey);
  }

  /** Starts a file: `text` is its path as rg wrote it, `bytes` its raw bytes when not UTF-8, `rawKey` its path JSON. */
  #begin(text: string, bytes: Buffer | undefined, rawKey: Buffer): void {
    const relative = text.replace(/^\.[\\/]/, "");
    // On Windows rg writes `\`; elsewhere a backslash is an ordinary character of a file name.
    const path = process.platform === "win32" ? relative.replaceAll("\\", "/") : relative;
    const pending: Pending = {
      // A copy: rawKey is a view into rg's chunk, which is not kept.
      key: Buffer.from(rawKey),
      path,
      pathBytes: bytes !== undefined ? stripDotSlash(bytes) : undefined,
      lines: new LineTable(this.#slab),
      matchLines: [],
      lastLine: 0,
    };
    this.#pending.set(pending.key.toString("latin1"), pending);
    this.#current = pending;
  }

  #slowLine(key: string, data: Record<string, unknown>, match: boolean): void {
    const file = this.#findPending(key);
    const number = data.line_number;
    if (file === undefined || typeof number !== "number") return;
    const raw = data.lines as Data | undefined;
    // A line whose offset rg did not give cannot be checked against the file, so it never ships (no text).
    const offset = typeof data.absolute_offset === "number" ? data.absolute_offset : -1;
    const { maxLineBytes } = this.#options;
    const bytes = typeof raw?.text === "string" ? undefined : Buffer.from(raw?.bytes ?? "", "base64");
    const length = bytes === undefined ? Buffer.byteLength(raw?.text as string) : bytes.length;
    const lossy = bytes !== undefined;
    this.#record(file, number, match);
    if (length > maxLineBytes || offset === -1) file.lines.addText(number, match, lossy, -1, undefined);
    else file.lines.addText(number, match, lossy, offset, lossy ? bytes.toString("utf8") : (raw?.text as string));
  }

  /** A pending file by the re-serialised JSON of its path (which may differ from rg's bytes in escaping). */
  #findPending(key: string): Pending | undefined {
    const exact = this.#pending.get(Buffer.from(key).toString("latin1"));
    if (exact !== undefined) return exact;
    for (const file of this.#pending.values()) {
      if (JSON.stringify(JSON.parse(file.key.toString("utf8"))) === key) return file;
    }
    return undefined;
  }

  #end(key: string, data: Record<string, unknown>): void {
    const file = this.#findPending(key);
    if (file === undefined) return;
    this.#finish(file, data.binary_offset !== null && data.binary_offset !== undefined);
  }

  /**
   * The `end` message of the current file, read from its bytes when it is shaped as rg
   * writes it (`{"type":"end","data":{"path":<key>,"binary_offset":null|<n>,…`): one per
   * file, and parsing its statistics was most of the cost of a small file. False if not.
   */
  #fastEnd(line: Buffer, start: number, end: number): boolean {
    const file = this.#current;
    if (file === undefined || line[start + 9] !== 0x65 || !startsWith(line, END, start, end)) return false;
    const at = start + END.length;
    if (!keyAt(line, file.key, at, end) || !startsWith(line, BINARY_OFFSET, at + file.key.length, end)) {
      return false;
    }
    const value = at + file.key.length + BINARY_OFFSET.length;
    const binary = (line[value] as number) >= 0x30 && (line[value] as number) <= 0x39;
    if (!binary && !startsWith(line, NULL_VALUE, value, end)) return false;
    this.#finish(file, binary);
    return true;
  }

  /** A file's last message has arrived: it is kept or dropped. */
  #finish(file: Pending, binary: boolean): void {
    this.#pending.delete(file.key.toString("latin1"));
    if (this.#current === file) this.#current = undefined;
    // rg reports matches it printed before noticing a NUL byte: such a file is binary after all.
    if (binary) {
      this.binary++;
      file.lines.discard();
      return;
    }
    if (file.matchLines.length === 0) {
      file.lines.discard();
      return;
    }
    this.#keep({
      path: file.path,
      pathBytes: file.pathBytes,
      lines: file.lines,
      matchLines: file.matchLines,
      lastLine: file.lastLine,
    });
  }
}
