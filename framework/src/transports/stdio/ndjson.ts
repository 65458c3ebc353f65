/**
 * NDJSON framing: bytes in, lines out. Pure and synchronous, so a property test can
 * feed it any split of a byte stream.
 *
 * - `\n` ends a line; a `\r` before it is dropped (CRLF); blank lines are skipped.
 * - A line longer than `maxLineBytes` is reported once as `overflow` and its bytes
 *   are discarded up to the next newline, where framing resynchronises.
 * - Bytes are decoded as UTF-8 only once a line is complete, so a character split
 *   across chunks is never mangled.
 */

/** One framing event, in stream order. */
export type FrameEvent = { type: "line"; text: string } | { type: "overflow"; limit: number };

const NEWLINE = 0x0a;
const CR = 0x0d;
const decoder = new TextDecoder("utf-8");

/** Splits a byte stream into NDJSON lines. */
export class LineSplitter {
  readonly #maxLineBytes: number;
  #pending: Uint8Array[] = [];
  #pendingBytes = 0;
  #discarding = false;

  /** @param maxLineBytes the longest line accepted, terminator excluded. */
  constructor(maxLineBytes: number) {
    this.#maxLineBytes = maxLineBytes;
  }

  /** Feeds a chunk; returns the events it completes. */
  push(chunk: Uint8Array): FrameEvent[] {
    const events: FrameEvent[] = [];
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(NEWLINE, start);
      if (newline === -1) {
        this.#take(chunk.subarray(start), events);
        break;
      }
      // The usual case, a whole line inside one chunk, is decoded in place, without a copy.
      if (this.#pendingBytes === 0 && !this.#discarding) this.#emit(chunk.subarray(start, newline), events);
      else {
        this.#take(chunk.subarray(start, newline), events);
        this.#finishLine(events);
      }
      start = newline + 1;
    }
    return events;
  }

  /** Ends the stream: a last line without a newline still counts. */
  end(): FrameEvent[] {
    const events: FrameEvent[] = [];
    this.#finishLine(events);
    return events;
  }

  #take(piece: Uint8Array, events: FrameEvent[]): void {
    if (this.#discarding || piece.length === 0) return;
    // The limit excludes a CR that a following LF will strip; allow one byte of slack for it.
    if (this.#pendingBytes + piece.length > this.#maxLineBytes + 1) {
      this.#pending = [];
      this.#pendingBytes = 0;
      this.#discarding = true;
      events.push({ type: "overflow", limit: this.#maxLineBytes });
      return;
    }
    // Copy: the caller may reuse the chunk's memory.
    this.#pending.push(piece.slice());
    this.#pendingBytes += piece.length;
  }

  #finishLine(events: FrameEvent[]): void {
    if (this.#discarding) {
      this.#discarding = false;
      return;
    }
    const bytes =
      this.#pending.length === 1 ? (this.#pending[0] as Uint8Array) : concat(this.#pending, this.#pendingBytes);
    this.#pending = [];
    this.#pendingBytes = 0;
    this.#emit(bytes, events);
  }

  /** Reports one complete line (terminator excluded): a line, an overflow, or nothing if blank. */
  #emit(line: Uint8Array, events: FrameEvent[]): void {
    const bytes = line.length > 0 && line[line.length - 1] === CR ? line.subarray(0, line.length - 1) : line;
    if (bytes.length > this.#maxLineBytes) {
      events.push({ type: "overflow", limit: this.#maxLineBytes });
      return;
    }
    const text = decoder.decode(bytes);
    if (text.trim() !== "") events.push({ type: "line", text });
  }
}

function concat(parts: Uint8Array[], total: number): Uint8Array {
  const out = new Uint8Array(total);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
