/**
 * The pre-tokenizer of o200k_base and cl100k_base, hand-written for ASCII text.
 *
 * Before BPE merges anything, both encodings cut text into pieces with a large
 * Unicode regex; on code and English prose that regex is about 60% of the time a
 * count takes. Restricted to ASCII its character classes collapse to a few ranges,
 * so a scanner reproduces its leftmost-alternative matches exactly at about a third
 * of the cost. Only ASCII text comes here; anything else keeps the regex. A property
 * test and an exhaustive small-alphabet test hold the pieces equal to the regex's.
 */

const UPPER = 1;
const LOWER = 2;
const DIGIT = 3;
/** Whitespace other than CR and LF: tab, vertical tab, form feed, space. */
const SPACE = 4;
/** CR or LF. */
const NEWLINE = 5;
/** Everything else: punctuation, symbols, control characters. */
const OTHER = 6;

const CLASS = new Uint8Array(128);
for (let code = 0; code < 128; code++) {
  if (code >= 65 && code <= 90) CLASS[code] = UPPER;
  else if (code >= 97 && code <= 122) CLASS[code] = LOWER;
  else if (code >= 48 && code <= 57) CLASS[code] = DIGIT;
  else if (code === 10 || code === 13) CLASS[code] = NEWLINE;
  else if (code === 9 || code === 11 || code === 12 || code === 32) CLASS[code] = SPACE;
  else CLASS[code] = OTHER;
}

const classAt = (text: string, at: number) => CLASS[text.charCodeAt(at)] as number;
const isLetter = (kind: number) => kind === UPPER || kind === LOWER;

/** Length of a contraction (`'s`, `'d`, `'m`, `'t`, `'ll`, `'ve`, `'re`, any case) at `at`, or 0. */
function contraction(text: string, at: number): number {
  if (text.charCodeAt(at) !== 39) return 0;
  const a = text.charCodeAt(at + 1) | 32; // NaN past the end: | 32 makes it 32, which matches nothing
  if (a === 115 || a === 100 || a === 109 || a === 116) return 2;
  const b = text.charCodeAt(at + 2) | 32;
  if ((a === 108 && b === 108) || (a === 118 && b === 101) || (a === 114 && b === 101)) return 3;
  return 0;
}

/**
 * o200k's words: `[A-Z]*[a-z]+` or `[A-Z]+[a-z]*`, then an optional contraction.
 * Returns the end of the word starting at `at`, or -1 when none starts there.
 */
function o200kWord(text: string, at: number, end: number): number {
  let upper = at;
  while (upper < end && classAt(text, upper) === UPPER) upper++;
  let lower = upper;
  while (lower < end && classAt(text, lower) === LOWER) lower++;
  if (lower === at) return -1;
  return lower + contraction(text, lower);
}

/** cl100k's words: `[A-Za-z]+`. Returns the end, or -1. */
function cl100kWord(text: string, at: number, end: number): number {
  let stop = at;
  while (stop < end && isLetter(classAt(text, stop))) stop++;
  return stop === at ? -1 : stop;
}

/** The end of the piece that starts at `at` under o200k_base's regex. */
function o200kPiece(text: string, at: number, end: number): number {
  const code = text.charCodeAt(at);
  const kind = CLASS[code] as number;
  if (isLetter(kind)) return o200kWord(text, at, end);
  if (kind === DIGIT) return digits(text, at, end);
  // `[^\r\n\p{L}\p{N}]?` before a word: one leading space, symbol or control character.
  if (kind !== NEWLINE && at + 1 < end) {
    const word = o200kWord(text, at + 1, end);
    if (word > 0) return word;
  }
  const symbols = punctuation(text, at, end, code, true);
  if (symbols > 0) return symbols;
  return o200kWhitespace(text, at, end);
}

/** The end of the piece that starts at `at` under cl100k_base's regex. */
function cl100kPiece(text: string, at: number, end: number): number {
  const code = text.charCodeAt(at);
  const kind = CLASS[code] as number;
  const apostrophe = contraction(text, at);
  if (apostrophe > 0) return at + apostrophe;
  if (isLetter(kind)) return cl100kWord(text, at, end);
  if (kind === DIGIT) return digits(text, at, end);
  if (kind !== NEWLINE && at + 1 < end) {
    const word = cl100kWord(text, at + 1, end);
    if (word > 0) return word;
  }
  const symbols = punctuation(text, at, end, code, false);
  if (symbols > 0) return symbols;
  return cl100kWhitespace(text, at, end);
}

/** `\p{N}{1,3}`. */
function digits(text: string, at: number, end: number): number {
  let stop = at + 1;
  while (stop < end && stop < at + 3 && classAt(text, stop) === DIGIT) stop++;
  return stop;
}

/** ` ?[^\s\p{L}\p{N}]+` then `[\r\n/]*` (o200k) or `[\r\n]*` (cl100k); -1 when it does not match. */
function punctuation(text: string, at: number, end: number, code: number, slash: boolean): number {
  let stop = code === 32 ? at + 1 : at;
  const first = stop;
  while (stop < end && classAt(text, stop) === OTHER) stop++;
  if (stop === first) return -1;
  while (stop < end && (classAt(text, stop) === NEWLINE || (slash && text.charCodeAt(stop) === 47))) stop++;
  return stop;
}

/** Set by {@link whitespaceRun}: the run's last CR or LF, or -1 (a second result, without an allocation). */
let lastNewline = -1;

/** The end of the whitespace run at `at`; leaves its last CR or LF in {@link lastNewline}. */
function whitespaceRun(text: string, at: number, end: number): number {
  let stop = at;
  lastNewline = -1;
  while (stop < end) {
    const kind = classAt(text, stop);
    if (kind === NEWLINE) lastNewline = stop;
    else if (kind !== SPACE) break;
    stop++;
  }
  return stop;
}

/** `\s*[\r\n]+|\s+(?!\S)|\s+`. */
function o200kWhitespace(text: string, at: number, end: number): number {
  const stop = whitespaceRun(text, at, end);
  if (lastNewline >= 0) return lastNewline + 1;
  if (stop === end || stop - at === 1) return stop;
  return stop - 1; // leave the last space to the word that follows
}

/** `\s+$|\s*[\r\n]|\s+(?!\S)|\s`. */
function cl100kWhitespace(text: string, at: number, end: number): number {
  const stop = whitespaceRun(text, at, end);
  if (stop === end) return stop;
  if (lastNewline >= 0) return lastNewline + 1;
  return stop - at === 1 ? stop : stop - 1;
}

const PIECE = { o200k_base: o200kPiece, cl100k_base: cl100kPiece } as const;

/** The encodings whose pre-tokenizer is written here: the counter's BPE encodings (named here, not imported, so encoders.ts and this module do not import each other). */
type BpeEncodingName = keyof typeof PIECE;

/**
 * The function that finds where the piece starting at `at` ends, for `encoding`:
 * the counter's hot loop calls it directly, slicing and ranking each piece itself.
 */
export function asciiPieceEnd(encoding: BpeEncodingName): (text: string, at: number, end: number) => number {
  return PIECE[encoding];
}

/**
 * Calls `visit(start, end)` for each piece of ASCII `text` under `encoding`'s
 * pre-tokenizer, in order; the pieces tile the text. Text must be ASCII.
 */
export function forEachAsciiPiece(
  text: string,
  encoding: BpeEncodingName,
  visit: (start: number, end: number) => void,
): void {
  const piece = PIECE[encoding];
  const end = text.length;
  for (let at = 0; at < end; ) {
    const stop = piece(text, at, end);
    visit(at, stop);
    at = stop;
  }
}
