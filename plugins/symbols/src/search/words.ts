/**
 * How names are taken apart for matching: subwords (camelCase, snake_case,
 * acronyms), a compact form without separators, and a 32-bit character mask that
 * rules out most names for a term with one AND.
 */

const WORD = /\p{Lu}+(?=\p{Lu}\p{Ll})|\p{Lu}?\p{Ll}+\p{N}*|\p{Lu}+\p{N}*|\p{N}+|\p{L}+/gu;

/** `parseHTTPRequest2x` → `parse`, `http`, `request2`, `x`; `MAX_RETRIES` → `max`, `retries`. Lower-cased. */
export function splitWords(identifier: string): string[] {
  // Most names are ASCII: a hand-written pass is several times faster than the Unicode regex.
  if (/[^\p{ASCII}]/u.test(identifier)) return (identifier.match(WORD) ?? []).map((word) => word.toLowerCase());
  const words: string[] = [];
  let start = -1;
  const kind = (code: number) =>
    code >= 65 && code <= 90 ? 1 : code >= 97 && code <= 122 ? 2 : code >= 48 && code <= 57 ? 3 : 0;
  for (let i = 0; i <= identifier.length; i++) {
    const current = i < identifier.length ? kind(identifier.charCodeAt(i)) : 0;
    if (start === -1) {
      if (current !== 0) start = i;
      continue;
    }
    const previous = kind(identifier.charCodeAt(i - 1));
    const next = i + 1 < identifier.length ? kind(identifier.charCodeAt(i + 1)) : 0;
    // The same words as the regex: a word ends at a separator, before a capital after a lower-case
    // letter or a digit (`parseConfig`, `utf8Decode`), before the last capital of a run followed by
    // lower case (`HTTPServer`), and before a lower-case letter after a digit (`request2x`).
    const boundary =
      current === 0 ||
      (current === 1 && (previous === 2 || previous === 3)) ||
      (current === 1 && previous === 1 && next === 2) ||
      (current === 2 && previous === 3);
    if (boundary) {
      words.push(identifier.slice(start, i).toLowerCase());
      start = current === 0 ? -1 : i;
    }
  }
  return words;
}

/** Lower-cased, letters and digits only: `MAX_RETRIES` → `maxretries`. */
export function compactForm(identifier: string): string {
  const lower = identifier.toLowerCase();
  return /^[a-z0-9]*$/.test(lower) ? lower : lower.replace(/[^\p{L}\p{N}]+/gu, "");
}

/**
 * Which characters occur: a bit per ASCII letter, one for all digits, five buckets for
 * everything else. Separators (`_`, `$`, `.`, `:`) set none. A name can only match a
 * term (at any tier but a typo) if it has every bit the term has.
 */
export function charMask(lower: string): number {
  let mask = 0;
  for (let i = 0; i < lower.length; i++) {
    const code = lower.charCodeAt(i);
    if (code >= 97 && code <= 122) mask |= 1 << (code - 97);
    else if (code >= 48 && code <= 57) mask |= 1 << 26;
    else if (code === 95 || code === 36 || code === 46 || code === 58) continue;
    else mask |= 1 << (27 + (code % 5));
  }
  return mask;
}

/**
 * {@link charMask} of the letters that start a word of `identifier` (as {@link splitWords}
 * splits it), computed in one pass without splitting: `getSourceFile` → g, s, f.
 */
export function initialsMask(identifier: string): number {
  if (/[^\p{ASCII}]/u.test(identifier)) {
    let words = 0;
    for (const word of splitWords(identifier)) words |= charMask(word.charAt(0));
    return words;
  }
  let mask = 0;
  let previous = 0; // 0 separator, 1 upper, 2 lower, 3 digit
  for (let i = 0; i < identifier.length; i++) {
    const code = identifier.charCodeAt(i);
    const current = code >= 65 && code <= 90 ? 1 : code >= 97 && code <= 122 ? 2 : code >= 48 && code <= 57 ? 3 : 0;
    const next = i + 1 < identifier.length ? identifier.charCodeAt(i + 1) : 0;
    const starts =
      current !== 0 &&
      (previous === 0 ||
        (current === 1 && previous !== 1) ||
        (current === 1 && next >= 97 && next <= 122) ||
        (current === 2 && previous === 3));
    if (starts) mask |= charMask(identifier.charAt(i).toLowerCase());
    previous = current;
  }
  return mask;
}

/** Number of set bits. */
export function bitCount(mask: number): number {
  let value = mask - ((mask >>> 1) & 0x55555555);
  value = (value & 0x33333333) + ((value >>> 2) & 0x33333333);
  return (((value + (value >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/**
 * A crude English stem for subword matching, where a stem only has to be a prefix of
 * the name's word: `counted` → `count`, `frames` → `fram` (of `frame`), `retries` → `retry`.
 */
export function stem(word: string): string {
  if (word.length <= 4) return word;
  if (word.endsWith("ies")) return `${word.slice(0, -3)}y`;
  for (const suffix of ["ing", "ed", "es", "s"]) {
    if (word.endsWith(suffix) && word.length - suffix.length >= 3) return word.slice(0, -suffix.length);
  }
  return word;
}
