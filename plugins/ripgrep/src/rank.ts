/**
 * Ranking a snippet into [0, 1], deterministically.
 *
 *     relevance = coverage × (0.50 + 0.15·quality + 0.10·density + 0.10·path + 0.10·proximity + 0.05·mention)
 *
 * - coverage: the weighted share of the query's terms found in the snippet (whole
 *   terms weigh 1, identifier parts 0.5). It multiplies everything: a snippet with
 *   more of the query always has the higher ceiling.
 * - quality: per found term, its best match — whole word 1, an identifier part
 *   (`Config` in `parseConfigFile`, `tokens` in `max_tokens`) 0.7, any other
 *   substring 0.35 — averaged by weight.
 * - density: match lines / snippet lines.
 * - path: the weighted share of terms in the file's path — in its name 1, in a
 *   directory 0.5.
 * - proximity: the file is an anchor 1, beside one or under an anchored directory 0.5.
 * - mention: the snippet names an anchor symbol as a whole word.
 *
 * Every factor is in [0, 1] and the weights sum to 1, so relevance is in [0, 1].
 */

/** The measured properties of one snippet, each in [0, 1]. */
export interface SnippetFeatures {
  readonly coverage: number;
  readonly quality: number;
  readonly density: number;
  readonly path: number;
  readonly proximity: number;
  readonly mention: number;
}

/** The weights of the bracket in the formula above; they sum to 1. */
export const RANK_WEIGHTS = {
  base: 0.5,
  quality: 0.15,
  density: 0.1,
  path: 0.1,
  proximity: 0.1,
  mention: 0.05,
} as const;

/** How good one occurrence of a term is. */
export const MATCH_QUALITY = { wholeWord: 1, identifierPart: 0.7, substring: 0.35 } as const;

const unit = (value: number) => (Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : 0);

/** The relevance of a snippet (see the module comment). */
export function relevance(features: SnippetFeatures): number {
  const w = RANK_WEIGHTS;
  const bracket =
    w.base +
    w.quality * unit(features.quality) +
    w.density * unit(features.density) +
    w.path * unit(features.path) +
    w.proximity * unit(features.proximity) +
    w.mention * unit(features.mention);
  return unit(unit(features.coverage) * bracket);
}

const WORD_CHAR = /[\p{L}\p{M}\p{N}_]/u;
const UPPER = /\p{Lu}/u;
const LOWER = /\p{Ll}/u;
const LOWER_OR_DIGIT = /[\p{Ll}\p{N}]/u;

/** The code point starting at `index`, or "" past the end. */
function charAt(text: string, index: number): string {
  const point = text.codePointAt(index);
  return point === undefined ? "" : String.fromCodePoint(point);
}

/** The code point ending just before `index`, or "" at the start (surrogate pairs kept whole). */
function charBefore(text: string, index: number): string {
  if (index <= 0) return "";
  const low = text.charCodeAt(index - 1);
  if (index >= 2 && low >= 0xdc00 && low <= 0xdfff) return text.slice(index - 2, index);
  return text.slice(index - 1, index);
}

/**
 * How an occurrence at `[start, end)` of `line` sits among the characters around it:
 * a whole word, a part of an identifier (camelCase, acronym or snake_case
 * boundaries: `Config` in `parseConfigFile`, `HTTP` in `HTTPServer`, `tokens` in
 * `max_tokens`), or a bare substring.
 */
export function occurrenceQuality(line: string, start: number, end: number): number {
  const before = charBefore(line, start);
  const first = charAt(line, start);
  const second = charAt(line, start + first.length);
  const last = charBefore(line, end);
  const after = charAt(line, end);
  const afterAfter = charAt(line, end + after.length);
  const leftWord = WORD_CHAR.test(before);
  const rightWord = WORD_CHAR.test(after);
  if (!leftWord && !rightWord) return MATCH_QUALITY.wholeWord;
  const leftBoundary =
    !leftWord ||
    before === "_" ||
    (UPPER.test(first) && LOWER_OR_DIGIT.test(before)) ||
    (UPPER.test(first) && UPPER.test(before) && LOWER.test(second));
  const rightBoundary =
    !rightWord ||
    after === "_" ||
    (UPPER.test(after) && LOWER_OR_DIGIT.test(last)) ||
    (UPPER.test(after) && UPPER.test(last) && LOWER.test(afterAfter));
  return leftBoundary && rightBoundary ? MATCH_QUALITY.identifierPart : MATCH_QUALITY.substring;
}
