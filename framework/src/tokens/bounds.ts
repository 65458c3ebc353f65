/**
 * Upper bounds of token counts, computed without tokenizing: what the packer uses to
 * skip counting what cannot ship, and to ship what surely fits.
 *
 * `bytes` — the UTF-8 length. It holds for byte-level BPE (o200k, cl100k, Llama 3,
 * DeepSeek V3: a token is at least one byte, and none of them normalises) and for
 * Gemma 3's SentencePiece-style BPE (its normaliser maps each space to one `▁`, so a
 * token covers at least one code point of the text, and a code point it cannot
 * spell falls back to one token per UTF-8 byte). A lone surrogate is 3 bytes (U+FFFD)
 * to every one of them, as to `Buffer.byteLength`.
 *
 * `nfd-bytes` — for Qwen 3, which NFC-normalises before its byte-level BPE. NFC can
 * lengthen text: U+0958 (3 bytes) becomes two code points (6 bytes), and reordering
 * marks can block a composition (`á` + U+0323, 4 bytes, becomes `ạ` + U+0301, 5 bytes).
 * But NFC is the canonical decomposition with compositions applied, and a composition
 * never lengthens UTF-8 (a mark is at least 2 bytes, what it joins at least 1, and the
 * composite at most 3 in the BMP, at most 4 from astral parts), so NFC is never longer
 * than the decomposition: the bound is the UTF-8 length of every code point's full
 * decomposition, summed. Additive, so subadditive; a lone surrogate counts 6, half the
 * longest astral decomposition, so splitting a pair never lowers the bound.
 */

/** Longest UTF-8 decomposition of one UTF-16 unit: U+0CCB is 3 code points of 3 bytes. */
const MAX_NFD_BYTES_PER_UNIT = 9;
/** What one half of a surrogate pair adds: half the longest decomposition of an astral code point (12 bytes). */
const LONE_SURROGATE_NFD_BYTES = 6;

const NON_ASCII = /[\u0080-\u{10FFFF}]/u;

/** The UTF-8 length: a bound for every tokenizer whose tokens each cover at least one byte. */
export function byteBound(text: string): number {
  return Buffer.byteLength(text, "utf8");
}

/** True only if the UTF-8 length is at most `budget`; the UTF-16 length settles most cases without measuring. */
export function bytesSurelyFit(text: string, budget: number): boolean {
  // A UTF-16 unit is 1–3 UTF-8 bytes.
  return 3 * text.length <= budget || (text.length <= budget && Buffer.byteLength(text, "utf8") <= budget);
}

let bmpNfdBytes: Uint8Array | undefined;
const astralNfdBytes = new Map<number, number>();

/** The UTF-8 length of every code point's canonical decomposition, summed (see above). */
export function nfdByteBound(text: string): number {
  if (!NON_ASCII.test(text)) return text.length;
  if (bmpNfdBytes === undefined) {
    bmpNfdBytes = new Uint8Array(0x10000);
    for (let unit = 0; unit < 0x10000; unit++) {
      bmpNfdBytes[unit] =
        unit >= 0xd800 && unit <= 0xdfff
          ? LONE_SURROGATE_NFD_BYTES
          : Buffer.byteLength(String.fromCharCode(unit).normalize("NFD"), "utf8");
    }
  }
  let total = 0;
  for (let at = 0; at < text.length; at++) {
    const unit = text.charCodeAt(at);
    if (unit >= 0xd800 && unit <= 0xdbff && at + 1 < text.length) {
      const low = text.charCodeAt(at + 1);
      if (low >= 0xdc00 && low <= 0xdfff) {
        const point = (unit - 0xd800) * 0x400 + (low - 0xdc00) + 0x10000;
        let bytes = astralNfdBytes.get(point);
        if (bytes === undefined) {
          bytes = Buffer.byteLength(String.fromCodePoint(point).normalize("NFD"), "utf8");
          astralNfdBytes.set(point, bytes);
        }
        total += bytes;
        at++;
        continue;
      }
    }
    total += bmpNfdBytes[unit] as number;
  }
  return total;
}

/** True only if {@link nfdByteBound} is at most `budget`; the UTF-16 length settles most cases without measuring. */
export function nfdBytesSurelyFit(text: string, budget: number): boolean {
  return MAX_NFD_BYTES_PER_UNIT * text.length <= budget || (text.length <= budget && nfdByteBound(text) <= budget);
}
