/**
 * The lines rg returned for one file, held without a JavaScript object or string per
 * line: each line's JSON string is copied, as rg wrote it, into the file's own byte
 * arena, and decoded only when someone reads its text. An arena per file, not one per
 * search: a file dropped at the match cap takes its bytes with it, so a search holds
 * what its kept files hold however much rg prints.
 *
 * Why: a search holds tens of thousands of lines (matches and their context) until it
 * ends, and most context lines never ship. Kept as strings and records, they all
 * outlive several young-generation collections and get copied and promoted each time;
 * that was about a sixth of the plugin's CPU. In an arena (off the heap) they cost the
 * collector nothing, and only the lines of the windows that ship are ever decoded.
 */

/** One line rg returned. */
export interface LineRecord {
  /** The exact line with its terminator; undefined when it is longer than the line limit. */
  readonly text: string | undefined;
  /** True when the line was not valid UTF-8 and `text` holds U+FFFD replacements. */
  readonly lossy: boolean;
  /** True for a match line, false for a context line. */
  readonly match: boolean;
  /** Where the line starts in the file, in bytes, as rg read it; -1 for a line without text (it never ships). */
  readonly offset: number;
}

/** Read access to a file's lines by line number (what {@link LineTable} offers downstream). */
export interface FileLines extends Iterable<[number, LineRecord]> {
  /** How many distinct lines are held. */
  readonly size: number;
  /** The line's record (its text decoded now), or undefined if rg did not return it. */
  get(number: number): LineRecord | undefined;
  /** The line's text (decoded now, not kept), or undefined if it has none: too long, or not returned. */
  text(number: number): string | undefined;
  /** True if the line was returned with its text (it may ship); cheap, decodes nothing. */
  hasText(number: number): boolean;
}

/** Bytes appended end to end, grown by doubling; a line's JSON string is an offset range in it. */
export class ByteArena {
  #bytes: Buffer;
  #used = 0;

  constructor(initialBytes = 1024) {
    this.#bytes = Buffer.allocUnsafe(Math.max(16, initialBytes));
  }

  /** Bytes allocated (in use or not). */
  get capacity(): number {
    return this.#bytes.length;
  }

  /** The arena's current bytes: valid only until the next {@link append}. */
  get bytes(): Buffer {
    return this.#bytes;
  }

  /** Bytes in use. */
  get used(): number {
    return this.#used;
  }

  /** Copies `source[start, end)` in; returns where it starts in {@link bytes}. */
  append(source: Buffer, start: number, end: number): number {
    const length = end - start;
    if (this.#used + length > this.#bytes.length) {
      const grown = Buffer.allocUnsafe(Math.max(this.#bytes.length * 2, this.#used + length));
      this.#bytes.copy(grown, 0, 0, this.#used);
      this.#bytes = grown;
    }
    const at = this.#used;
    const bytes = this.#bytes;
    // Most lines are short: a loop beats Buffer#copy there, which makes a view per call.
    if (length <= 256) for (let i = 0; i < length; i++) bytes[at + i] = source[start + i] as number;
    else source.copy(bytes, at, start, end);
    this.#used += length;
    return at;
  }
}

/**
 * The text of the JSON string at `[start, end)` of `bytes` (quotes included) when its
 * only escape is the line terminator at its end (`\n` or `\r\n`) — most lines of code —
 * without `JSON.parse`; undefined otherwise.
 */
export function plainLine(bytes: Buffer, start: number, end: number): string | undefined {
  const slash = bytes.indexOf(0x5c, start + 1);
  if (slash === end - 3 && bytes[slash + 1] === 0x6e) return `${bytes.toString("utf8", start + 1, slash)}\n`;
  if (slash === end - 5 && bytes[slash + 1] === 0x72 && bytes[slash + 2] === 0x5c && bytes[slash + 3] === 0x6e) {
    return `${bytes.toString("utf8", start + 1, slash)}\r\n`;
  }
  return undefined;
}

/**
 * The UTF-8 length of the text of the JSON string at `[start, end)` when {@link plainLine}
 * would decode it (rg writes non-ASCII as is, so the bytes are the text's own); -1 otherwise.
 */
export function plainLineBytes(bytes: Buffer, start: number, end: number): number {
  const slash = bytes.indexOf(0x5c, start + 1);
  if (slash === end - 3 && bytes[slash + 1] === 0x6e) return slash - start;
  if (slash === end - 5 && bytes[slash + 1] === 0x72 && bytes[slash + 2] === 0x5c && bytes[slash + 3] === 0x6e) {
    return slash - start + 1;
  }
  return -1;
}

const MATCH = 1;
const LOSSY = 2;
const TEXT = 4;

/** One file's lines: see the module comment. Written by the collector, read through {@link FileLines}. */
export class LineTable implements FileLines {
  readonly #arena = new ByteArena();
  /** Line number → slot in the arrays below (a map of small integers: no object per line). */
  readonly #slots = new Map<number, number>();
  /** Where the line's JSON string is in the arena; -1 when its text is held in {@link #decoded} or it has none. */
  readonly #starts: number[] = [];
  readonly #ends: number[] = [];
  readonly #offsets: number[] = [];
  readonly #flags: number[] = [];
  /** Texts decoded when the line arrived (non-UTF-8 lines, and the few whose length needed decoding to judge). */
  #decoded: Map<number, string> | undefined;

  get size(): number {
    return this.#slots.size;
  }

  #slot(number: number): number {
    const known = this.#slots.get(number);
    if (known !== undefined) {
      this.#decoded?.delete(known);
      return known;
    }
    const slot = this.#flags.length;
    this.#slots.set(number, slot);
    this.#starts.push(-1);
    this.#ends.push(-1);
    this.#offsets.push(-1);
    this.#flags.push(0);
    return slot;
  }

  /** Records a line whose text is the JSON string at `json[start, end)` (quotes included), copied into the arena. */
  addJson(number: number, match: boolean, offset: number, json: Buffer, start: number, end: number): void {
    const slot = this.#slot(number);
    const at = this.#arena.append(json, start, end);
    this.#starts[slot] = at;
    this.#ends[slot] = at + end - start;
    this.#offsets[slot] = offset;
    this.#flags[slot] = TEXT | (match ? MATCH : 0);
  }

  /** Records a line with its text already decoded, or without text (`undefined`: too long to ship). */
  addText(number: number, match: boolean, lossy: boolean, offset: number, text: string | undefined): void {
    const slot = this.#slot(number);
    this.#starts[slot] = -1;
    this.#ends[slot] = -1;
    this.#offsets[slot] = text === undefined ? -1 : offset;
    this.#flags[slot] = (match ? MATCH : 0) | (lossy ? LOSSY : 0) | (text === undefined ? 0 : TEXT);
    if (text === undefined) return;
    this.#decoded ??= new Map();
    this.#decoded.set(slot, text);
  }

  /** Bytes this table's arena holds: what keeping the file costs beyond a few numbers per line. */
  get heldBytes(): number {
    return this.#arena.capacity;
  }

  hasText(number: number): boolean {
    const slot = this.#slots.get(number);
    return slot !== undefined && ((this.#flags[slot] as number) & TEXT) !== 0;
  }

  text(number: number): string | undefined {
    const slot = this.#slots.get(number);
    return slot === undefined ? undefined : this.#textAt(slot);
  }

  #textAt(slot: number): string | undefined {
    if (((this.#flags[slot] as number) & TEXT) === 0) return undefined;
    const start = this.#starts[slot] as number;
    if (start === -1) return this.#decoded?.get(slot);
    const end = this.#ends[slot] as number;
    const bytes = this.#arena.bytes;
    const plain = plainLine(bytes, start, end);
    if (plain !== undefined) return plain;
    try {
      return JSON.parse(bytes.toString("utf8", start, end)) as string;
    } catch {
      // rg writes valid JSON; a string that is not stays unread (and so never ships) rather than fail the search.
      return undefined;
    }
  }

  get(number: number): LineRecord | undefined {
    const slot = this.#slots.get(number);
    return slot === undefined ? undefined : this.#recordAt(slot);
  }

  #recordAt(slot: number): LineRecord {
    const flags = this.#flags[slot] as number;
    return {
      text: this.#textAt(slot),
      lossy: (flags & LOSSY) !== 0,
      match: (flags & MATCH) !== 0,
      offset: this.#offsets[slot] as number,
    };
  }

  /** Every line as `[number, record]`, in the order first recorded (as a `Map` iterates). */
  *[Symbol.iterator](): IterableIterator<[number, LineRecord]> {
    for (const [number, slot] of this.#slots) yield [number, this.#recordAt(slot)];
  }
}
