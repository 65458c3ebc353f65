/**
 * Splitting rg's stdout into lines for the {@link RgJsonCollector} without ever
 * holding a line too long to ship. On a large tree most of rg's output can be a few
 * minified or data lines of megabytes each; once the first part of such a line
 * proves it too long, the rest is only scanned for its line number as it streams by.
 */
import { LINE_NUMBER, type RgJsonCollector } from "./collect.js";

/** Options of {@link RgJsonStream}. */
export interface RgJsonStreamOptions {
  /** A line that has grown to this many bytes without its newline is checked for skipping. Default 64 KiB. */
  longLineCheck?: number;
}

interface Skipping {
  /** The line's first part: enough to tell its file and kind. */
  readonly head: Buffer;
  /** The last bytes seen, so a marker split across chunks is still found. */
  carry: Buffer;
  /** `undefined` while the line-number marker is still ahead; then the digits read so far. */
  digits: string | undefined;
  /** The number's digits have ended. */
  done: boolean;
}

const DIGIT = /^[0-9]*/;

/** Feeds the collector line by line from stdout chunks; a stdout handler for `runRipgrep`. */
export class RgJsonStream {
  readonly #collector: RgJsonCollector;
  readonly #longLineCheck: number;
  #pieces: Buffer[] = [];
  #length = 0;
  #nextCheck: number;
  #skipping: Skipping | undefined;

  constructor(collector: RgJsonCollector, options: RgJsonStreamOptions = {}) {
    this.#collector = collector;
    this.#longLineCheck = options.longLineCheck ?? 64 * 1024;
    this.#nextCheck = this.#longLineCheck;
  }

  /** Takes the next chunk of stdout; returns false once the collector has enough (rg can stop). */
  write(chunk: Buffer): boolean {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(0x0a, start);
      if (newline !== -1 && this.#pieces.length === 0 && this.#skipping === undefined) {
        // The common case, a whole line inside one chunk: straight to the collector.
        // Read in place: a view per line would be an object per line.
        const lineStart = start;
        start = newline + 1;
        if (newline > lineStart && !this.#collector.pushRange(chunk, lineStart, newline)) return false;
        continue;
      }
      const piece = chunk.subarray(start, newline === -1 ? chunk.length : newline);
      if (this.#skipping !== undefined) this.#scan(this.#skipping, piece);
      else this.#keep(piece);
      if (newline === -1) break;
      start = newline + 1;
      if (!this.#endLine()) return false;
    }
    return !this.#collector.full;
  }

  #keep(piece: Buffer): void {
    this.#pieces.push(piece);
    this.#length += piece.length;
    if (this.#length < this.#nextCheck) return;
    const head = Buffer.concat(this.#pieces);
    this.#pieces = [head];
    if (this.#collector.acceptsLong(head)) {
      this.#skipping = { head, carry: head.subarray(-(LINE_NUMBER.length - 1)), digits: undefined, done: false };
      this.#pieces = [];
      this.#length = 0;
    } else {
      // Doubling keeps the joining linear however long the line grows.
      this.#nextCheck = this.#length * 2;
    }
  }

  /** Looks for the line-number marker and its digits in the next piece of a skipped line. */
  #scan(skipping: Skipping, piece: Buffer): void {
    if (skipping.done) return;
    let from = 0;
    if (skipping.digits === undefined) {
      const joint = Buffer.concat([skipping.carry, piece.subarray(0, LINE_NUMBER.length - 1)]);
      const inJoint = joint.indexOf(LINE_NUMBER);
      if (inJoint !== -1) {
        from = inJoint + LINE_NUMBER.length - skipping.carry.length;
      } else {
        const inPiece = piece.indexOf(LINE_NUMBER);
        if (inPiece === -1) {
          const keep = LINE_NUMBER.length - 1;
          skipping.carry =
            piece.length >= keep ? piece.subarray(-keep) : Buffer.concat([skipping.carry, piece]).subarray(-keep);
          return;
        }
        from = inPiece + LINE_NUMBER.length;
      }
      skipping.digits = "";
    }
    const digits = (
      DIGIT.exec(piece.toString("latin1", from, Math.min(piece.length, from + 16))) as RegExpExecArray
    )[0];
    skipping.digits += digits;
    skipping.done = from + digits.length < piece.length;
  }

  #endLine(): boolean {
    const skipping = this.#skipping;
    this.#skipping = undefined;
    this.#nextCheck = this.#longLineCheck;
    if (skipping !== undefined) return this.#collector.pushLong(skipping.head, Number(skipping.digits ?? 0));
    const line = this.#pieces.length === 1 ? (this.#pieces[0] as Buffer) : Buffer.concat(this.#pieces);
    this.#pieces = [];
    this.#length = 0;
    return line.length === 0 ? !this.#collector.full : this.#collector.push(line);
  }
}
