/**
 * Ranking files by a goal written in prose ("frames writer: bound what the memos keep
 * alive"), where few words name a symbol exactly: BM25 over each file's term bag (its
 * text split into stemmed subwords, extract/bag.ts), with the words of its path and of
 * the names it defines counted again as fields of their own, so `eval/trees.ts` and a
 * `TreeCache` class count for "trees" more than a passing mention does.
 *
 * - Term weights are IDF over the indexed files: a word in every file ("return",
 *   "value") weighs almost nothing, a rare one ("memo") decides.
 * - Tests, fixtures and benchmarks rank below implementation (their scores are scaled
 *   down) unless the goal itself is about tests.
 * - English function words are not searched.
 */
import { posix } from "node:path";
import { type BagWord, termCount, textHashes, textWords } from "../extract/bag.js";
import type { NameEntry, NameTable } from "./name-table.js";
import { goalHead } from "./terms.js";

/** A word of the goal, with how often the goal says it. */
export interface ProseTerm extends BagWord {
  readonly count: number;
}

/** The most words taken from one goal. */
export const MAX_PROSE_TERMS = 32;

/** BM25's term-frequency saturation and length normalisation. */
const K1 = 1.2;
const B = 0.75;

/**
 * How much more a word counts in a file's path, and in the names the file defines, than
 * in its text (BM25F fields); and what a goal word naming a directory or file name adds
 * on its own, × that word's IDF among paths (`fix(request): …` is about `src/request.ts`).
 */
export const FIELD_WEIGHTS = { path: 4, names: 2, pathBonus: 1 };

/** What a test, fixture or benchmark file's score is multiplied by when the goal is not about tests. */
export const TEST_FACTOR = 0.35;

/** Files scored in full (with the names field); the rest keep their body-and-path score. */
const NAMES_FIELD_FILES = 300;

const FUNCTION_WORDS =
  "a an the is are was were be been being am of in on at to for from by with without into onto over under " +
  "about and or not no nor but if then else so than as it its this that these those there here what where which " +
  "who whom whose when why how does do did done doing can could should would will shall may might must " +
  "i me my we us our you your they them their he she his her all any some each every also just only now " +
  "one two its it's instead via";

/** Stop words as the bag spells them (stemmed), by hash. */
const STOP_HASHES: ReadonlySet<number> = new Set(textWords(FUNCTION_WORDS).map((word) => word.hash));

/** The words that make a goal about tests: then tests are not ranked down. */
const TEST_WORDS: ReadonlySet<number> = new Set(
  textWords("test tests testing tested spec specs fixture fixtures bench benchmark benchmarks e2e mock mocks").map(
    (word) => word.hash,
  ),
);

/** The words of a goal worth searching (in its {@link goalHead}), most frequent first (then in order written). */
export function proseTerms(text: string): ProseTerm[] {
  const counts = new Map<number, { word: BagWord; count: number; first: number }>();
  let position = 0;
  for (const word of textWords(goalHead(text))) {
    position++;
    if (STOP_HASHES.has(word.hash)) continue;
    const known = counts.get(word.hash);
    if (known !== undefined) known.count++;
    else counts.set(word.hash, { word, count: 1, first: position });
  }
  return [...counts.values()]
    .sort((a, b) => b.count - a.count || a.first - b.first)
    .slice(0, MAX_PROSE_TERMS)
    .map(({ word, count }) => ({ ...word, count }));
}

/** Whether the goal's words are about tests. */
export function aboutTests(terms: readonly ProseTerm[]): boolean {
  return terms.some((term) => TEST_WORDS.has(term.hash));
}

const TEST_DIRS = new Set([
  "test",
  "tests",
  "__tests__",
  "spec",
  "specs",
  "testing",
  "test-support",
  "test_support",
  "test_utils",
  "testdata",
  "fixture",
  "fixtures",
  "__fixtures__",
  "__mocks__",
  "e2e",
  "bench",
  "benches",
  "benchmark",
  "benchmarks",
]);
const TEST_NAME = /\.(?:test|spec|bench|e2e)\.[^.]+$|^test_.+\.py$|_test\.(?:py|go|rs)$|^conftest\.py$|Tests?\.java$/;

/** Whether a root-relative path is a test, fixture or benchmark file. */
export function isTestPath(path: string): boolean {
  const parts = path.split("/");
  const name = parts[parts.length - 1] as string;
  if (TEST_NAME.test(name)) return true;
  for (let i = 0; i < parts.length - 1; i++) if (TEST_DIRS.has(parts[i] as string)) return true;
  return false;
}

/** A file's standing for a goal. */
export interface FileRelevance {
  readonly fileId: number;
  readonly path: string;
  /** BM25 of the file for the goal (test files scaled down), ≥ 0. */
  readonly score: number;
  /** The share of the goal's IDF weight the file holds at all, in [0, 1]. */
  readonly coverage: number;
}

/** `[hash, count]` pairs of the words of `texts`, sorted by hash. */
function countWords(texts: readonly string[]): Uint32Array {
  const counts = new Map<number, number>();
  for (const text of texts) textHashes(text, (hash) => counts.set(hash, (counts.get(hash) ?? 0) + 1));
  const pairs = new Uint32Array(2 * counts.size);
  [...counts.keys()]
    .sort((a, b) => a - b)
    .forEach((hash, i) => {
      pairs[2 * i] = hash;
      pairs[2 * i + 1] = counts.get(hash) as number;
    });
  return pairs;
}

/** The field bags derived from the table, cached (by path; by a file's entry list, which a change replaces). */
export class ProseFields {
  private readonly paths = new Map<string, Uint32Array>();
  private readonly names = new WeakMap<readonly NameEntry[], Uint32Array>();

  /** The words of a path's directories and file name (without its extension). */
  pathWords(path: string): Uint32Array {
    let words = this.paths.get(path);
    if (words === undefined) {
      const extension = posix.extname(path);
      words = countWords([extension !== "" ? path.slice(0, -extension.length) : path]);
      this.paths.set(path, words);
      // Paths of deleted files linger: a bound keeps it from growing without end.
      if (this.paths.size > 200_000) this.paths.clear();
    }
    return words;
  }

  /** The words of the names a file defines (each name once per definition). */
  nameWords(entries: readonly NameEntry[]): Uint32Array {
    let words = this.names.get(entries);
    if (words === undefined) {
      words = countWords(entries.map((entry) => entry.name));
      this.names.set(entries, words);
    }
    return words;
  }
}

/** IDF of each term over the table's files (BM25's, kept positive). */
export function termWeights(table: NameTable, terms: readonly ProseTerm[]): number[] {
  const files = table.fileCount;
  return terms.map((term) => {
    const df = table.documentFrequency(term.hash);
    return Math.log(1 + (files - df + 0.5) / (df + 0.5));
  });
}

/**
 * Every file holding any of the goal's words, scored by BM25 over its text, path and
 * defined names, best first (ties by path). Test files are scaled by {@link TEST_FACTOR}
 * unless the goal is about tests.
 */
export function rankFiles(table: NameTable, terms: readonly ProseTerm[], fields: ProseFields): FileRelevance[] {
  if (terms.length === 0 || table.fileCount === 0) return [];
  const weights = termWeights(table, terms);
  const total = weights.reduce((sum, weight, i) => sum + weight * queryWeight(terms[i] as ProseTerm), 0);
  const mean = Math.max(1, table.meanWords);
  const demoteTests = !aboutTests(terms);
  const scored: { fileId: number; path: string; length: number; body: number[]; path_: Uint32Array }[] = [];
  const inPaths = terms.map(() => 0);
  const counts = new Int32Array(terms.length);
  for (const file of table.files()) {
    const bag = table.bag(file.id);
    const pathWords = fields.pathWords(file.path);
    let any = false;
    for (let i = 0; i < terms.length; i++) {
      const hash = (terms[i] as ProseTerm).hash;
      const count = termCount(bag.terms, hash);
      counts[i] = count;
      if (count > 0) any = true;
      if (pathWords.length > 0 && termCount(pathWords, hash) > 0) {
        inPaths[i] = (inPaths[i] as number) + 1;
        any = true;
      }
    }
    if (any) scored.push({ fileId: file.id, path: file.path, length: bag.length, body: [...counts], path_: pathWords });
  }
  // A goal word that names few paths points at them: its IDF among paths, as a share of the goal's weight.
  const pathWeights = inPaths.map((count) =>
    count > 0 ? Math.log(1 + (table.fileCount - count + 0.5) / (count + 0.5)) : 0,
  );
  const score = (entry: (typeof scored)[number], names: Uint32Array | undefined) => {
    let sum = 0;
    let covered = 0;
    let pathBonus = 0;
    const norm = K1 * (1 - B + (B * entry.length) / mean);
    for (let i = 0; i < terms.length; i++) {
      const term = terms[i] as ProseTerm;
      const inPath = termCount(entry.path_, term.hash);
      const tf =
        (entry.body[i] as number) +
        FIELD_WEIGHTS.path * inPath +
        (names !== undefined ? FIELD_WEIGHTS.names * termCount(names, term.hash) : 0);
      if (tf === 0) continue;
      const weight = (weights[i] as number) * queryWeight(term);
      sum += (weight * tf * (K1 + 1)) / (tf + norm);
      covered += weight;
      if (inPath > 0) pathBonus += (pathWeights[i] as number) * queryWeight(term);
    }
    sum += FIELD_WEIGHTS.pathBonus * pathBonus;
    const factor = demoteTests && isTestPath(entry.path) ? TEST_FACTOR : 1;
    return { score: sum * factor, coverage: total > 0 ? covered / total : 0 };
  };
  const first = scored.map((entry) => ({ entry, ...score(entry, undefined) }));
  first.sort((a, b) => b.score - a.score || (a.entry.path < b.entry.path ? -1 : 1));
  // The names field for the leading files only: a term in a name is in the text too, so no file is missed.
  const ranked: FileRelevance[] = first.map(({ entry, score: bodyScore, coverage }, i) => {
    if (i >= NAMES_FIELD_FILES) return { fileId: entry.fileId, path: entry.path, score: bodyScore, coverage };
    const full = score(entry, fields.nameWords(table.entriesOf(entry.fileId)));
    return { fileId: entry.fileId, path: entry.path, ...full };
  });
  return ranked.sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : 1));
}

/** A word the goal repeats counts more, with diminishing returns. */
function queryWeight(term: ProseTerm): number {
  return 1 + Math.log(term.count);
}
