/**
 * The lines rg returned, held without a JavaScript object or string per line: each
 * line's JSON string is copied, as rg wrote it, into a byte arena and decoded only when
 * someone reads its text; its number, flags, place in the arena and file offset are
 * numbers in typed arrays. One {@link LineSlab} holds the lines of every file of one
 * search; a {@link LineTable} is one file's rows in it.
 *
 * Why: a search holds tens of thousands of lines (matches and their context) until it
 * ends, and most context lines never ship. Kept as strings and records, they all
 * outlive several young-generation collections and get copied and promoted each time;
 * that was about a sixth of the plugin's CPU. A table per file in plain arrays and a
 * `Map` was still ~2.4 MB of small heap arrays on a large search, copied and promoted by
 * the scavenge every query landed in (~8 ms of pause a query, and the GC's helper threads
 * competing with rg for the cores). In typed arrays the collector never scans or copies
 * them, and a slab reused from search to search ({@link LineSlabPool}) is not garbage at all.
 *
 * A file dropped at the match cap leaves dead rows and bytes behind; once they outweigh
 * the live ones the slab is compacted, so a search holds what its kept files hold, however
 * much rg prints.
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

  /** Forgets every byte (the capacity stays, for the next search). */
  reset(): void {
    this.#used = 0;
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

/** A row of {@link LineSlab}: the line's number, flags, JSON string in the arena (or -1) and file offset. */
const NUMBER = 0;
const FLAGS = 1;
const START = 2;
const END = 3;
const OFFSET = 4;
const STRIDE = 5;

const INITIAL_ROWS = 1024;
const INITIAL_BYTES = 64 * 1024;
/** Dead bytes below this are never worth a compaction. */
const MIN_DEAD_BYTES = 16 * 1024;

/**
 * The lines of one search's files: rows of numbers in one `Float64Array` (no integer
 * limit on line numbers or offsets) and their JSON strings in one {@link ByteArena}.
 * Rows are written through {@link LineTable}s; the slab only grows, resets and compacts.
 */
export class LineSlab {
  #rows = new Float64Array(INITIAL_ROWS * STRIDE);
  #length = 0;
  #arena = new ByteArena(INITIAL_BYTES);
  #deadRows = 0;
  #deadBytes = 0;
  #generation = 0;
  /** The tables not discarded: what a compaction keeps. */
  readonly #tables = new Set<LineTable>();
  readonly #minDeadBytes: number;
  readonly #minDeadRows: number;

  /** `minDeadBytes` and `minDeadRows`: the least dead bytes or rows worth a compaction (tests set 0). */
  constructor(options: { minDeadBytes?: number; minDeadRows?: number } = {}) {
    this.#minDeadBytes = options.minDeadBytes ?? MIN_DEAD_BYTES;
    this.#minDeadRows = options.minDeadRows ?? INITIAL_ROWS;
  }

  /** The rows' numbers: valid only until the next row is added. @internal */
  get rows(): Float64Array {
    return this.#rows;
  }

  /** Rows in use (live or dead). @internal */
  get length(): number {
    return this.#length;
  }

  /** The arena of the rows' JSON strings. @internal */
  get arena(): ByteArena {
    return this.#arena;
  }

  /** Changes on every {@link reset}: a table of an earlier search refuses to be read. @internal */
  get generation(): number {
    return this.#generation;
  }

  /** Bytes of line text in use, dead ones not yet compacted away included. */
  get heldBytes(): number {
    return this.#arena.used;
  }

  /** Bytes allocated for rows and text, in use or not: what keeping the slab for the next search costs. */
  get capacityBytes(): number {
    return this.#rows.byteLength + this.#arena.capacity;
  }

  /** Starts over for another search: every table made so far becomes unreadable. */
  reset(): this {
    this.#length = 0;
    this.#arena.reset();
    this.#deadRows = 0;
    this.#deadBytes = 0;
    this.#tables.clear();
    this.#generation++;
    return this;
  }

  /** Registers a new table. @internal */
  attach(table: LineTable): void {
    this.#tables.add(table);
  }

  /** Appends `count` rows (not cleared: whoever adds a row writes all of it); returns the first. @internal */
  addRows(count: number): number {
    const needed = (this.#length + count) * STRIDE;
    if (needed > this.#rows.length) {
      const grown = new Float64Array(Math.max(this.#rows.length * 2, needed));
      grown.set(this.#rows.subarray(0, this.#length * STRIDE));
      this.#rows = grown;
    }
    const first = this.#length;
    this.#length += count;
    return first;
  }

  /** Counts rows and bytes no table uses any more (a line recorded again, a table moved). @internal */
  bury(rows: number, bytes: number): void {
    this.#deadRows += rows;
    this.#deadBytes += bytes;
  }

  /**
   * A table is gone (its file dropped): its rows and bytes are dead, and once the dead
   * outweigh the live ones the slab is compacted. Only here: no table is being written. @internal
   */
  detach(table: LineTable, rows: number, bytes: number): void {
    if (!this.#tables.delete(table)) return;
    this.bury(rows, bytes);
    const liveBytes = this.#arena.used - this.#deadBytes;
    const liveRows = this.#length - this.#deadRows;
    const bytesOutweigh = this.#deadBytes >= this.#minDeadBytes && this.#deadBytes > liveBytes;
    if (bytesOutweigh || this.#deadRows > Math.max(liveRows, this.#minDeadRows)) this.#compact(liveRows, liveBytes);
  }

  /** Copies the live tables' rows and bytes into fresh arrays, in table order. */
  #compact(liveRows: number, liveBytes: number): void {
    const rows = new Float64Array(Math.max(INITIAL_ROWS, 2 * liveRows) * STRIDE);
    const arena = new ByteArena(Math.max(INITIAL_BYTES, 2 * liveBytes));
    let length = 0;
    for (const table of this.#tables) length = table.relocate(this.#rows, this.#arena.bytes, rows, arena, length);
    this.#rows = rows;
    this.#arena = arena;
    this.#length = length;
    this.#deadRows = 0;
    this.#deadBytes = 0;
  }
}

/**
 * Slabs kept from search to search, so the lines of a search are not garbage: at most
 * `keep` of them (one per concurrent search), none larger than `maxBytes` (a search
 * that needed more gives its slab back to the garbage collector).
 */
export class LineSlabPool {
  readonly #free: LineSlab[] = [];
  readonly #keep: number;
  readonly #maxBytes: number;

  constructor(options: { keep: number; maxBytes: number }) {
    this.#keep = options.keep;
    this.#maxBytes = options.maxBytes;
  }

  /** A slab with nothing in it. */
  acquire(): LineSlab {
    return this.#free.pop() ?? new LineSlab();
  }

  /** Gives a slab back once nothing of its search will be read again (its tables refuse reads from now on). */
  release(slab: LineSlab): void {
    slab.reset();
    if (this.#free.length < this.#keep && slab.capacityBytes <= this.#maxBytes) this.#free.push(slab);
  }
}

/**
 * One file's lines: its rows of a {@link LineSlab}, consecutive and ascending by line
 * number (rg reports a file's lines in order, so they are appended; anything else is
 * moved or inserted to keep it so). Written by the collector, read through {@link FileLines}.
 */
export class LineTable implements FileLines {
  readonly #slab: LineSlab;
  readonly #generation: number;
  #from: number;
  #to: number;
  /** Arena bytes this table's rows use. */
  #bytes = 0;
  /** Texts decoded when the line arrived, by line number (non-UTF-8 lines, and the few whose length needed decoding to judge). */
  #decoded: Map<number, string> | undefined;

  constructor(slab: LineSlab = new LineSlab()) {
    this.#slab = slab;
    this.#generation = slab.generation;
    this.#from = slab.length;
    this.#to = slab.length;
    slab.attach(this);
  }

  get size(): number {
    this.#check();
    return this.#to - this.#from;
  }

  /** Bytes of line text this table holds. */
  get heldBytes(): number {
    return this.#bytes;
  }

  #check(): LineSlab {
    if (this.#slab.generation !== this.#generation)
      throw new Error("a line table was read after its search released it");
    return this.#slab;
  }

  /** The row found last: readers mostly go line by line, so the next one is usually at or after it. */
  #last = 0;

  /** The row of line `number`, or -1. */
  #find(number: number): number {
    const rows = this.#slab.rows;
    const last = this.#last;
    if (last >= this.#from && last < this.#to) {
      if (rows[last * STRIDE + NUMBER] === number) return last;
      if (last + 1 < this.#to && rows[(last + 1) * STRIDE + NUMBER] === number) {
        this.#last = last + 1;
        return last + 1;
      }
    }
    let low = this.#from;
    let high = this.#to;
    while (low < high) {
      const middle = (low + high) >> 1;
      const at = rows[middle * STRIDE + NUMBER] as number;
      if (at < number) low = middle + 1;
      else if (at > number) high = middle;
      else {
        this.#last = middle;
        return middle;
      }
    }
    return -1;
  }

  /** The row for line `number`: appended (the usual case), or the line's own when recorded again, or inserted in order. */
  #row(number: number): number {
    const slab = this.#check();
    const atEnd = this.#to === slab.length;
    if (atEnd && (this.#to === this.#from || number > (slab.rows[(this.#to - 1) * STRIDE + NUMBER] as number))) {
      const row = slab.addRows(1);
      this.#to++;
      slab.rows[row * STRIDE + NUMBER] = number;
      return row;
    }
    const known = this.#find(number);
    if (known !== -1) {
      this.#decoded?.delete(number);
      this.#release(known);
      return known;
    }
    if (!atEnd) this.#moveToEnd();
    // Inserted in order: the table's rows are now the slab's last, so the ones after it shift up by one.
    slab.addRows(1);
    const rows = slab.rows;
    let at = this.#to;
    while (at > this.#from && (rows[(at - 1) * STRIDE + NUMBER] as number) > number) at--;
    rows.copyWithin((at + 1) * STRIDE, at * STRIDE, this.#to * STRIDE);
    rows.fill(0, at * STRIDE, (at + 1) * STRIDE);
    rows[at * STRIDE + NUMBER] = number;
    this.#to++;
    return at;
  }

  /** Moves this table's rows to the slab's end (another file's rows came after them); the old ones are dead. */
  #moveToEnd(): void {
    const slab = this.#slab;
    const count = this.#to - this.#from;
    const first = slab.addRows(count);
    slab.rows.copyWithin(first * STRIDE, this.#from * STRIDE, this.#to * STRIDE);
    this.#from = first;
    this.#to = first + count;
    slab.bury(count, 0);
  }

  /** The row's bytes are no longer this table's (it is being recorded again). */
  #release(row: number): void {
    const rows = this.#slab.rows;
    const start = rows[row * STRIDE + START] as number;
    if (start < 0 || (rows[row * STRIDE + FLAGS] as number) === 0) return;
    const length = (rows[row * STRIDE + END] as number) - start;
    this.#bytes -= length;
    this.#slab.bury(0, length);
  }

  /** Records a line whose text is the JSON string at `json[start, end)` (quotes included), copied into the arena. */
  addJson(number: number, match: boolean, offset: number, json: Buffer, start: number, end: number): void {
    const row = this.#row(number);
    const at = this.#slab.arena.append(json, start, end);
    const rows = this.#slab.rows;
    const base = row * STRIDE;
    rows[base + FLAGS] = TEXT | (match ? MATCH : 0);
    rows[base + START] = at;
    rows[base + END] = at + end - start;
    rows[base + OFFSET] = offset;
    this.#bytes += end - start;
  }

  /** Records a line with its text already decoded, or without text (`undefined`: too long to ship). */
  addText(number: number, match: boolean, lossy: boolean, offset: number, text: string | undefined): void {
    const row = this.#row(number);
    const rows = this.#slab.rows;
    const base = row * STRIDE;
    rows[base + FLAGS] = (match ? MATCH : 0) | (lossy ? LOSSY : 0) | (text === undefined ? 0 : TEXT);
    rows[base + START] = -1;
    rows[base + END] = -1;
    rows[base + OFFSET] = text === undefined ? -1 : offset;
    if (text === undefined) return;
    this.#decoded ??= new Map();
    this.#decoded.set(number, text);
  }

  /** The file is dropped: nothing of it is read again, and its rows and bytes may be compacted away. */
  discard(): void {
    if (this.#slab.generation !== this.#generation) return;
    const rows = this.#to - this.#from;
    const bytes = this.#bytes;
    this.#from = this.#to = this.#slab.length;
    this.#bytes = 0;
    this.#decoded = undefined;
    this.#slab.detach(this, rows, bytes);
  }

  /**
   * Copies this table's rows from `rows` (their bytes from `bytes`) to `into` at row
   * `at`, and its bytes into `arena`; returns the row after them. Used by a compaction. @internal
   */
  relocate(rows: Float64Array, bytes: Buffer, into: Float64Array, arena: ByteArena, at: number): number {
    const count = this.#to - this.#from;
    into.set(rows.subarray(this.#from * STRIDE, this.#to * STRIDE), at * STRIDE);
    for (let row = at; row < at + count; row++) {
      const start = into[row * STRIDE + START] as number;
      if (start < 0 || (into[row * STRIDE + FLAGS] as number) === 0) continue;
      const end = into[row * STRIDE + END] as number;
      const moved = arena.append(bytes, start, end);
      into[row * STRIDE + START] = moved;
      into[row * STRIDE + END] = moved + end - start;
    }
    this.#from = at;
    this.#to = at + count;
    return this.#to;
  }

  hasText(number: number): boolean {
    this.#check();
    const row = this.#find(number);
    return row !== -1 && ((this.#slab.rows[row * STRIDE + FLAGS] as number) & TEXT) !== 0;
  }

  text(number: number): string | undefined {
    this.#check();
    const row = this.#find(number);
    return row === -1 ? undefined : this.#textAt(row);
  }

  #textAt(row: number): string | undefined {
    const rows = this.#slab.rows;
    if (((rows[row * STRIDE + FLAGS] as number) & TEXT) === 0) return undefined;
    const start = rows[row * STRIDE + START] as number;
    if (start < 0) return this.#decoded?.get(rows[row * STRIDE + NUMBER] as number);
    const end = rows[row * STRIDE + END] as number;
    const bytes = this.#slab.arena.bytes;
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
    this.#check();
    const row = this.#find(number);
    return row === -1 ? undefined : this.#recordAt(row);
  }

  #recordAt(row: number): LineRecord {
    const flags = this.#slab.rows[row * STRIDE + FLAGS] as number;
    return {
      text: this.#textAt(row),
      lossy: (flags & LOSSY) !== 0,
      match: (flags & MATCH) !== 0,
      offset: this.#slab.rows[row * STRIDE + OFFSET] as number,
    };
  }

  /** Every line as `[number, record]`, ascending by line number. */
  *[Symbol.iterator](): IterableIterator<[number, LineRecord]> {
    this.#check();
    for (let row = this.#from; row < this.#to; row++) {
      yield [this.#slab.rows[row * STRIDE + NUMBER] as number, this.#recordAt(row)];
    }
  }
}
