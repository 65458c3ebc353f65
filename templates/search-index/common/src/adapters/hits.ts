/**
 * What the search-index adapters do alike with an engine's hits: how many of the goal's
 * words a hit must hold, and which part of a long hit ships — what a search engine's
 * highlighter does. A hit longer than the budget is cut by the packer to its first lines,
 * which need not be where the goal's words are, and fills the budget alone; its best
 * passage leaves room for the next hits. Every search-index template (SQLite FTS5, lunr,
 * HTTP) writes this same file, whichever index it wraps: edit it freely.
 */

/**
 * The most distinct words of a goal an adapter searches for, the first written. Each word
 * is a lookup in the engine and a check against every hit, so a goal pasted from a file
 * (thousands of words) held the provider for seconds while every other request waited; a
 * goal is a sentence or a paragraph, and none of the labelled goals has more than 16.
 */
export const MAX_GOAL_WORDS = 32;

/** The most of a goal read, in characters (about 1,300 words): what follows is not looked at. */
export const MAX_GOAL_CHARS = 8192;

/**
 * The part of a goal an adapter reads: all of it up to {@link MAX_GOAL_CHARS} characters,
 * else that much cut at its last space, so no word is read half. With {@link MAX_GOAL_WORDS},
 * it bounds a query's work whatever the goal's length.
 */
export function goalText(text: string): string {
  if (text.length <= MAX_GOAL_CHARS) return text;
  const head = text.slice(0, MAX_GOAL_CHARS);
  const space = head.search(/\s\S*$/);
  return space > 0 ? head.slice(0, space) : head;
}

/** A line range [from, to) of a text's lines. */
type Span = [number, number];

/** Lines of a hit's text, 1-based and inclusive: where a shipped passage sits in it. */
export interface LineSpan {
  start: number;
  end: number;
}

/** What of a hit ships: its text, the lines of the hit it is, and whether that is the whole hit. */
export interface Passage {
  text: string;
  lines: LineSpan;
  whole: boolean;
}

/** Lines as a citation writes them, the way the framework does for files: `L12-30`, or `L12` for one. */
export function lineLabel(lines: LineSpan): string {
  return lines.start === lines.end ? `L${lines.start}` : `L${lines.start}-${lines.end}`;
}

/**
 * The passage of `text` (at most about `maxChars` characters, cut between paragraphs —
 * blank lines outside code fences — or between lines where one paragraph alone is
 * longer) holding the most of `words`, then the most occurrences of them, then the
 * earliest; `text` itself when it is no longer than `maxChars`. Words are compared
 * lower-cased with common English endings folded ("counted" meets "counts"). With the
 * passage come its lines in `text`, which the adapters cite (`man:tar(1) L120-141`):
 * a host, and the person reading its answer, can find it in a long page.
 */
export function bestPassage(text: string, words: readonly string[], maxChars: number): Passage {
  if (text.length <= maxChars) return { text, lines: { start: 1, end: lineCount(text) }, whole: true };
  const wanted = new Set(words.map((word) => fold(word.toLowerCase())));
  let best: Passage | undefined;
  let bestHeld = -1;
  let bestCount = -1;
  for (const passage of passageSpans(text, maxChars)) {
    const found = (passage.text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).map(fold).filter((w) => wanted.has(w));
    const held = new Set(found).size;
    if (held > bestHeld || (held === bestHeld && found.length > bestCount)) {
      best = passage;
      bestHeld = held;
      bestCount = found.length;
    }
  }
  return best ?? { text, lines: { start: 1, end: lineCount(text) }, whole: true };
}

/** How many lines `text` has: a last line without its newline counts, the empty text has one. */
function lineCount(text: string): number {
  let lines = 1;
  for (let at = text.indexOf("\n"); at !== -1 && at < text.length - 1; at = text.indexOf("\n", at + 1)) lines++;
  return lines;
}

/** `text` cut into passages of about equal size, each at most `maxChars` unless a single line is longer. */
export function passages(text: string, maxChars: number): string[] {
  return passageSpans(text, maxChars).map((passage) => passage.text);
}

/**
 * {@link passages} with the lines of `text` each one is; a passage ends at its last line
 * that is not blank (the blank lines between paragraphs are not shipped).
 */
function passageSpans(text: string, maxChars: number): Passage[] {
  const lines = text.split(/(?<=\n)/);
  const size = ([from, to]: Span) => lines.slice(from, to).reduce((sum, line) => sum + line.length, 0);
  const pieces = paragraphs(lines).flatMap((span) =>
    size(span) <= maxChars ? [span] : cutLines(lines, span, maxChars),
  );
  // Equal shares rather than full passages and a scrap: a passage of three lines says little.
  const target = text.length / Math.ceil(text.length / maxChars);
  const found: Passage[] = [];
  let from = 0;
  let chars = 0;
  const close = (to: number) => {
    let end = to;
    while (end > from && (lines[end - 1] as string).trim() === "") end--;
    if (end > from) {
      const whole = from === 0 && end === lines.length;
      found.push({ text: lines.slice(from, end).join(""), lines: { start: from + 1, end }, whole });
    }
    from = to;
    chars = 0;
  };
  for (const piece of pieces) {
    const length = size(piece);
    if (chars > 0 && (chars + length > maxChars || chars >= target)) close(piece[0]);
    chars += length;
  }
  close(lines.length);
  return found;
}

/** Lines' paragraphs, each ending with its blank line; a fenced block with blank lines inside stays one. */
function paragraphs(lines: readonly string[]): Span[] {
  const spans: Span[] = [];
  let fenced = false;
  let from = 0;
  lines.forEach((line, at) => {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    if (!fenced && line.trim() === "") {
      spans.push([from, at + 1]);
      from = at + 1;
    }
  });
  if (from < lines.length) spans.push([from, lines.length]);
  return spans;
}

/** A span cut between its lines into pieces of at most `maxChars` (a single longer line is a piece alone). */
function cutLines(lines: readonly string[], [from, to]: Span, maxChars: number): Span[] {
  const pieces: Span[] = [];
  let start = from;
  let chars = 0;
  for (let at = from; at < to; at++) {
    const length = (lines[at] as string).length;
    if (chars > 0 && chars + length > maxChars) {
      pieces.push([start, at]);
      start = at;
      chars = 0;
    }
    chars += length;
  }
  pieces.push([start, to]);
  return pieces;
}

/** Folds the common English endings, so "counted", "counts" and "counting" meet "count". */
function fold(word: string): string {
  if (word.length > 5 && word.endsWith("ies")) return `${word.slice(0, -3)}y`;
  if (word.length > 5 && word.endsWith("ing")) return word.slice(0, -3);
  if (word.length > 4 && word.endsWith("ed")) return word.slice(0, -2);
  if (word.length > 4 && /(ss|sh|ch|x)es$/.test(word)) return word.slice(0, -2);
  if (word.length > 3 && word.endsWith("s") && !word.endsWith("ss")) return word.slice(0, -1);
  return word;
}

/**
 * How many of a goal's `words` a hit must hold to be offered: `minCoverage` of them, and
 * never just one of several — one shared word ("run", "cat" of `git cat-file`) is no
 * evidence of a subject. `minCoverage: 0` (an engine matching by meaning) asks for none.
 */
export function wordsNeeded(words: number, minCoverage: number): number {
  return minCoverage <= 0 ? 0 : Math.max(minCoverage * words, Math.min(2, words));
}

/**
 * How much holding a goal's word says that a hit is about the goal, in this index: the
 * Robertson–Spärck Jones weight BM25 ranks by, `ln((N − df + 0.5) / (df + 0.5))` of the
 * index's own counts (`documents` = N, `holding` = df, the documents holding the word), and
 * never below 0 — FTS5's `bm25()` floors it the same way. A word half the documents hold
 * says nothing (0); one a third of them hold, ln 2; one a single document holds, the most.
 */
export function wordEvidence(holding: number, documents: number): number {
  const all = Math.max(documents, holding);
  return Math.max(0, Math.log((all - holding + 0.5) / (holding + 0.5)));
}

/**
 * The least evidence ({@link wordEvidence}) a hit holding only some of a goal's words must
 * carry: that of one word held by a third of the index's documents. On the labelled goals
 * of this repository's docs and of the templates' sample pages, every gold document holding
 * only some of its goal's words carries 1.05 or more ("time", in 19 of 74 sections, beside
 * "plugin", in 40); a README holding only "files" and "documented" of "where are the bash
 * startup files documented", in an index of READMEs and man pages where they are in 675
 * and 388 of 907 documents, 0.29.
 */
export const MIN_EVIDENCE = Math.log(2);

/**
 * Whether a hit holding the goal's words flagged in `held` is offered: `minCoverage` of
 * them and two at least ({@link wordsNeeded}); and, unless it holds every one, words whose
 * `evidence` in this index adds up to {@link MIN_EVIDENCE}. By count alone, any README
 * holding "files" and "documented" answered "where are the bash startup files documented":
 * half of its words, the half that most documents hold. Calibrated by the index's own
 * document frequencies, a word most of its documents hold is no evidence of a subject,
 * whichever index it is. A hit holding every word answers the goal as well as the index
 * can, and is never held back. `minCoverage: 0` (an engine matching by meaning) asks for nothing.
 */
export function holdsEnough(held: readonly boolean[], evidence: readonly number[], minCoverage: number): boolean {
  if (minCoverage <= 0) return true;
  let count = 0;
  let carried = 0;
  held.forEach((holds, i) => {
    if (!holds) return;
    count++;
    carried += evidence[i] ?? 0;
  });
  if (count < wordsNeeded(held.length, minCoverage)) return false;
  return count === held.length || carried >= MIN_EVIDENCE;
}

/**
 * The longest passage shipped of a long hit, in characters, for a query's budget: its
 * share of the budget when `max_frames` frames fill it (at four characters a token), and
 * no less than 400 characters, a couple of paragraphs. Measured on the tuned goals of
 * this repository's docs at 1024 tokens: from a sixth to an eighth of the budget ships
 * the gold document for the most goals (a quarter, one goal fewer with lunr); whole
 * documents, for 9 to 22 points fewer.
 */
export function passageChars(maxTokens: number, maxFrames: number): number {
  return Math.max(400, (4 * maxTokens) / Math.max(1, maxFrames));
}
