/**
 * From query text to search terms.
 *
 * - `"quoted text"` is one phrase term (its words separated by any spaces or tabs);
 * - every other run of letters, digits and `_` is a word; stop-words and single
 *   characters are dropped; words of two characters match whole words only;
 * - an identifier (`parseConfigFile`, `max_tokens`, `HTTPServer`) is kept whole and
 *   also split into its parts (`parse`, `config`, `file`), which count half;
 * - smart case, per term: a term with an upper-case letter after its first is
 *   matched case-sensitively (`parseConfig`, `HTTP`); lower-case and Capitalized
 *   words are not (a goal's first word is often Capitalized);
 * - at most {@link MAX_TERMS} terms, whole terms first;
 * - bounded whatever the text: a word longer than {@link MAX_TERM_LENGTH} (a pasted
 *   blob, not something anyone searches for) is skipped, a phrase is cut there, and
 *   only the first {@link MAX_SCANNED_WORDS} words and phrases are read. So the
 *   patterns given to rg stay a few KB on any goal (far below any argument limit),
 *   and the regexes built from terms stay small enough to compile.
 */

/** Where a term came from; it decides its weight. */
export type TermSource = "word" | "identifier" | "phrase" | "part";

/** One thing to search for. */
export interface Term {
  /** The literal text (for a phrase: its words joined by single spaces). */
  readonly text: string;
  readonly source: TermSource;
  /** Matched case-sensitively (smart case). */
  readonly caseSensitive: boolean;
  /** Matched as a whole word only (two-character terms). */
  readonly wholeWord: boolean;
  /** Its share of a snippet's coverage: 1 for whole terms, 0.5 for identifier parts. */
  readonly weight: number;
}

/** The most terms one query searches for. */
export const MAX_TERMS = 16;
const MAX_WHOLE_TERMS = 10;
/**
 * The longest term, in code points: longer words are skipped, longer phrases cut. A
 * word of 7,000 characters made a regex too deep for V8 to compile; one of 128 KiB
 * made the rg command line too long to start.
 */
export const MAX_TERM_LENGTH = 200;
/** Words and phrases read from one text; the rest is not looked at (a goal is a sentence, not a file). */
export const MAX_SCANNED_WORDS = 1000;

/** English function words and the filler of questions and requests, never worth a search. */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    "a about above after again against all also am an and any are as at be because been before being below between " +
    "both but by can could did do does doing done down during each else ever every few for from further had has " +
    "have having he her here hers him his how however i if in into is it its itself just let me more most much " +
    "must my no nor not now of off on once only or other our ours out over own per please same shall she should " +
    "show so some such than that the their theirs them then there these they this those through thus to too " +
    "under until up upon us very via was way we were what whatever when where whether which while who whom whose " +
    "why will with within without would yes yet you your yours " +
    "explain find give help know like look need see tell want work works"
  ).split(" "),
);

/** Letters (with their marks), digits and `_`: what a word or identifier is made of. */
const WORD = /[\p{L}\p{M}\p{N}_]+/gu;
const PHRASE = /["“”]([^"“”\n]+)["“”]/gu;

/** True for an identifier worth splitting: inner upper case, `_`, or letters next to digits. */
function isIdentifier(token: string): boolean {
  return /\p{Ll}\p{Lu}|\p{Lu}{2}\p{Ll}|_|\p{L}\p{N}|\p{N}\p{L}/u.test(token) || /^.+\p{Lu}/u.test(token);
}

/** The parts of an identifier: `getHTTPResponse2` → get, HTTP, Response, 2. */
export function identifierParts(token: string): string[] {
  return token
    .split(/_+/)
    .flatMap((piece) => piece.split(/(?<=[\p{Ll}\p{N}])(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll})|(?<=\p{L})(?=\p{N})/u))
    .filter((part) => part !== "");
}

/** Smart case: an upper-case letter after the first character makes a term case-sensitive. */
function smartCase(text: string): boolean {
  return /^.+\p{Lu}/su.test(text) || /^\p{Lu}$/u.test(text);
}

/** The terms of a query text; empty when nothing in it is worth searching for. */
export function queryTerms(text: string): Term[] {
  const whole: Term[] = [];
  const parts: Term[] = [];
  const phrases: string[] = [];
  for (const match of text.matchAll(PHRASE)) {
    if (phrases.length === MAX_SCANNED_WORDS) break;
    phrases.push((match[1] as string).trim());
  }
  const rest = text.replace(PHRASE, " ");
  let scanned = phrases.length;

  for (const phrase of phrases) {
    const words = phrase.split(/[ \t]+/).filter((word) => word !== "");
    if (words.length === 0) continue;
    // Cut where it may, a phrase never ends in a space (its pattern would then demand one).
    const joined = cut(words.join(" "), MAX_TERM_LENGTH).trimEnd();
    if (words.length === 1 && [...joined].length < 2) continue;
    whole.push({
      text: joined,
      source: words.length > 1 ? "phrase" : isIdentifier(joined) ? "identifier" : "word",
      caseSensitive: smartCase(joined),
      wholeWord: [...joined].length <= 2 && /^[\p{L}\p{M}\p{N}_]+$/u.test(joined),
      weight: 1,
    });
  }

  for (const [token] of rest.matchAll(WORD)) {
    if (scanned++ === MAX_SCANNED_WORDS) break;
    // UTF-16 length bounds the code points from above and below (×2): no need to count a huge token.
    if (token.length > 2 * MAX_TERM_LENGTH) continue;
    const length = [...token].length;
    if (length < 2 || length > MAX_TERM_LENGTH || STOP_WORDS.has(token.toLowerCase())) continue;
    const identifier = isIdentifier(token);
    const caseSensitive = smartCase(token);
    whole.push({
      // Prose is inflected, code names are not: "adds retry for failed uploads" should find `retryUpload`.
      text: identifier || caseSensitive ? token : stem(token),
      source: identifier ? "identifier" : "word",
      caseSensitive,
      wholeWord: length <= 2,
      weight: 1,
    });
    if (!identifier) continue;
    for (const part of identifierParts(token)) {
      const lower = part.toLowerCase();
      if ([...part].length < 3 || STOP_WORDS.has(lower) || lower === token.toLowerCase()) continue;
      parts.push({ text: lower, source: "part", caseSensitive: false, wholeWord: false, weight: 0.5 });
    }
  }

  // A case-insensitive term covers every case-sensitive spelling of it; the first whole term wins over a part.
  const insensitive = new Set([...whole, ...parts].filter((t) => !t.caseSensitive).map((t) => t.text.toLowerCase()));
  const seen = new Set<string>();
  const kept: Term[] = [];
  for (const term of [...whole.slice(0, MAX_WHOLE_TERMS), ...parts]) {
    const lower = term.text.toLowerCase();
    if (term.caseSensitive && insensitive.has(lower)) continue;
    const key = term.caseSensitive ? `=${term.text}` : `~${lower}`;
    if (seen.has(key)) continue;
    seen.add(key);
    kept.push(term.caseSensitive || term.source === "phrase" ? term : { ...term, text: lower });
    if (kept.length === MAX_TERMS) break;
  }
  return kept;
}

/**
 * A light English stem of a lower-case word, meant for substring search: plural and
 * verb endings go (`uploads` → `upload`, `retries` → `retry`, `handling` → `handl`,
 * `parsed` → `pars`), never leaving fewer than 4 letters, so the stem still matches the
 * inflected word and the identifiers built on it. Anything else is returned as is.
 */
export function stem(word: string): string {
  const lower = word.toLowerCase();
  if (!/^\p{Ll}+$/u.test(lower)) return word;
  const keep = (base: string) => ([...base].length >= 4 ? base : undefined);
  if (lower.endsWith("ies")) return keep(`${lower.slice(0, -3)}y`) ?? word;
  if (lower.endsWith("ing")) return keep(lower.slice(0, -3)) ?? word;
  if (lower.endsWith("ed") && !lower.endsWith("eed")) return keep(lower.slice(0, -2)) ?? word;
  if (/(?:ss|sh|ch|x)es$/.test(lower)) return keep(lower.slice(0, -2)) ?? word;
  if (lower.endsWith("s") && !/(?:ss|us|is)$/.test(lower)) return keep(lower.slice(0, -1)) ?? word;
  return word;
}

/** The first `max` code points of `text` (never half of a surrogate pair). */
function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  return [...text.slice(0, 2 * max)].slice(0, max).join("");
}

/** Escapes every character the Rust regex syntax (ripgrep's) gives a meaning, as `regex::escape` does. */
export function escapeRustRegex(text: string): string {
  return text.replace(/[\\.+*?()|[\]{}^$#&\-~]/g, "\\$&");
}

/** Escapes a literal for a JavaScript regular expression. */
function escapeJsRegex(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&");
}

/** The rg pattern of a term: a regex-escaped literal, case-insensitive unless smart case says otherwise. */
export function rustPattern(term: Term): string {
  let pattern = term.text.split(" ").map(escapeRustRegex).join("[ \\t]+");
  if (term.wholeWord) pattern = `\\b${pattern}\\b`;
  return term.caseSensitive ? pattern : `(?i:${pattern})`;
}

/**
 * A term's regex for file paths: {@link termRegExp}, but never case-sensitive. Names are
 * lower-cased more often than not, whatever case a goal writes: `LaTeX` names
 * `writers/latex.py`, `HTTPServer` names `http_server.py` only through its parts.
 */
export function pathRegExp(term: Term): RegExp {
  return term.caseSensitive ? termRegExp({ ...term, caseSensitive: false }) : termRegExp(term);
}

/** A global JavaScript regex matching what {@link rustPattern} matches, for scoring lines rg returned. */
export function termRegExp(term: Term): RegExp {
  let pattern = term.text.split(" ").map(escapeJsRegex).join("[ \\t]+");
  if (term.wholeWord) pattern = `(?<![\\p{L}\\p{M}\\p{N}_])${pattern}(?![\\p{L}\\p{M}\\p{N}_])`;
  return new RegExp(pattern, term.caseSensitive ? "gu" : "giu");
}
