/**
 * Text search over facts, the same strategy on both backends: the engine (FTS5
 * or PostgreSQL full-text) decides which versions match which terms; this
 * module decides which matches to ask for and how to score them.
 *
 * A host's goal is a sentence ("where does Alice Smith work now?"). Ranking
 * every fact that shares any word with it is what makes naive full-text search
 * slow on a million facts (BM25 over every version containing "work"). Instead:
 *
 * 1. Content terms: words of the goal minus English stop words.
 * 2. Each term's document frequency, counted by the engine but never past a cap
 *    (cheap; a common term is counted further, once, and remembered), orders the
 *    terms rarest first. A term in more than `STOP_CAP` versions is left out when
 *    the goal has any other: it tells almost nothing, and intersecting its
 *    postings would cost more than the rest of the query.
 * 3. Levels: facts matching *all* terms, then all but the most common one, and
 *    so on; then the same from the second-rarest term on. Each level is one
 *    indexed AND query, and the search stops as soon as enough facts are found.
 *    A level led by a rare term has at most `cap` matches: all of them are
 *    fetched and ranked. One led by a common term is sampled (`want` matches).
 * 4. Score in [0, 1]: the share of the goal's term weight a fact matched (rarer
 *    terms weigh more, `ln(1 + STOP_CAP / df)`), refined within its level by where the
 *    words occur (subject and predicate count four times the statement) and by
 *    the statement's length. Both backends score alike.
 *
 * The engines' own ranking (BM25, ts_rank) is not used: FTS5's bm25() counts the
 * documents of every query term on each call, which for a term in half the store
 * costs more than everything else together.
 */

import type { Reader, Row, TimeFilter } from "./backend.js";
import { fold } from "./fold.js";

/** Document frequency above which a term counts as common: a level it leads is sampled, not ranked. */
export const TERM_CAP = 1000;
/**
 * Document frequency at which a term stops being worth matching at all ("attribute"
 * in a store where every predicate is attribute_N): intersecting its postings costs
 * more than anything else in a query and tells almost nothing.
 */
export const STOP_CAP = 50_000;
/** The rarest terms of a goal that take part; more only adds queries. */
const MAX_TERMS = 8;

// Question words and glue: they carry no content in a goal sentence.
const STOP_WORDS = new Set(
  (
    "a about above after again all also am an and any are as at be been being but by can could did do does doing " +
    "for from had has have having he her here hers him his how i if in into is it its just me more most my no nor " +
    "not now of off on once only or other our ours out over own same she should so some such than that the their " +
    "theirs them then there these they this those through to too under until up very was we were what when where " +
    "which while who whom why will with would you your yours tell show give find know please"
  ).split(" "),
);

/**
 * The most of a goal read, in characters (about 1,300 words): reading all of a pasted
 * megabyte took a quarter of a second of the provider's one thread, for terms that were
 * nearly always in its first lines.
 */
export const MAX_GOAL_CHARS = 8192;

/**
 * The content terms of a goal: lower-cased words and numbers, stop words dropped, first
 * occurrence kept; read from its first {@link MAX_GOAL_CHARS} characters, cut at a space.
 * A word keeps its combining marks ("İstanbul" lower-cased is "i", a combining dot,
 * "stanbul": not two words); each backend folds terms as its index folds text.
 */
export function queryTerms(text: string): string[] {
  let read = text;
  if (read.length > MAX_GOAL_CHARS) {
    read = read.slice(0, MAX_GOAL_CHARS);
    const space = read.search(/\s\S*$/);
    if (space > 0) read = read.slice(0, space);
  }
  const terms: string[] = [];
  for (const [word] of read.toLowerCase().matchAll(/[\p{L}\p{M}\p{N}]+/gu)) {
    if (STOP_WORDS.has(word) || terms.includes(word)) continue;
    terms.push(word);
    if (terms.length >= 4 * MAX_TERMS) break;
  }
  return terms;
}

/** One search result: a version and its score in [0, 1]. */
export interface ScoredRow {
  readonly row: Row;
  readonly relevance: number;
}

/** Options of {@link searchRows}. */
export interface SearchRowsOptions {
  terms: readonly string[];
  time: TimeFilter;
  /** How many facts to find at most. */
  want: number;
  /** Common-term threshold; default {@link TERM_CAP}. */
  cap?: number;
  /** Everywhere-term threshold; default {@link STOP_CAP}. */
  stopCap?: number;
  /** Document frequency of a term, counted no further than `cap`; default asks the reader (a store passes its cache). */
  countTerm?: (term: string, cap: number) => Promise<number>;
}

/** A crude English stem for locating a term in text ("works" → "work"); the engine already matched properly. */
export function roughStem(term: string): string {
  const folded = fold(term);
  return folded.length <= 4 ? folded : folded.replace(/(?:ing|ers|er|ed|es|s)$/, "");
}

/** Where a version mentions the stems: subject and predicate ×4, statement ×1, damped by the statement's length. */
function placement(row: Row, stems: readonly string[]): number {
  const subject = fold(row.subject);
  const predicate = fold(row.predicate);
  const statement = fold(row.statement);
  let score = 0;
  for (const stem of stems) {
    if (subject.includes(stem)) score += 4;
    if (predicate.includes(stem)) score += 4;
    if (statement.includes(stem)) score += 1;
  }
  return score / (1 + Math.log1p(statement.length / 200));
}

/** Finds up to `want` versions visible at `time` matching the terms, best first. */
export async function searchRows(reader: Reader, options: SearchRowsOptions): Promise<ScoredRow[]> {
  const cap = options.cap ?? TERM_CAP;
  const want = options.want;
  if (want <= 0 || options.terms.length === 0) return [];
  const count = options.countTerm ?? ((term: string, limit: number) => reader.countTerm(term, limit));
  const stop = Math.max(options.stopCap ?? STOP_CAP, cap + 1);
  const counted: { term: string; df: number }[] = [];
  for (const term of options.terms.slice(0, 2 * MAX_TERMS)) {
    const df = await count(term, cap + 1);
    // Only a common term is counted further, to tell "common" from "everywhere" (the store caches these).
    counted.push({ term, df: df > cap ? await count(term, stop + 1) : df });
  }
  // Terms the index has never seen cannot match anything: they would only empty every level.
  const known = counted.filter(({ df }) => df > 0).sort((a, b) => a.df - b.df || (a.term < b.term ? -1 : 1));
  const useful = known.filter(({ df }) => df <= stop);
  const live = (useful.length > 0 ? useful : known).slice(0, MAX_TERMS);
  if (live.length === 0) return [];
  const weight = (df: number) => Math.log(1 + stop / Math.min(df, stop));
  const total = live.reduce((sum, { df }) => sum + weight(df), 0);
  const stems = live.map(({ term }) => roughStem(term));

  const found = new Map<string, ScoredRow>();
  for (let start = 0; start < live.length && found.size < want; start++) {
    for (let end = live.length; end > start && found.size < want; end--) {
      const level = live.slice(start, end);
      // Led by a rare term, the level has at most `cap` matches: take them all and rank them.
      const bounded = (level[0]?.df ?? 0) <= cap;
      const terms = level.map(({ term }) => term);
      const rows = (await reader.matchAll(terms, options.time, bounded ? cap : want + found.size)).filter(
        (row) => !found.has(`${row.id}@${row.version}`),
      );
      const coverage = level.reduce((sum, { df }) => sum + weight(df), 0) / total;
      const placed = rows.map((row) => ({ row, place: placement(row, stems.slice(start, end)) }));
      // A loop, not Math.max(...places): a large --limit brings more rows than a call takes arguments.
      const best = placed.reduce((max, { place }) => Math.max(max, place), 1e-9);
      for (const { row, place } of placed) {
        found.set(`${row.id}@${row.version}`, { row, relevance: coverage * (0.8 + 0.2 * (place / best)) });
      }
    }
  }
  return [...found.values()].sort((a, b) => b.relevance - a.relevance || b.row.id - a.row.id).slice(0, want);
}
