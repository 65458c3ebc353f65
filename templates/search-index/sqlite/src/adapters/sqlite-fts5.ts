/**
 * A plugin over an existing SQLite FTS5 table: name the table and which of its
 * columns hold the text, the title and the link, and each query becomes an FTS5
 * `MATCH` ranked by `bm25()`. The database is opened read-only; nothing is written.
 *
 * The goal's words, stop words ("how", "are", "the") dropped, are first searched all
 * together (AND); only when that leaves room, rows holding some of them follow (OR). Such
 * a row must hold 40% of the words, and two at least (`minCoverage`), and words that are
 * evidence of a subject in this table — not only words most of its rows hold (see
 * `holdsEnough` in ./hits.ts) — to be offered at all, so an off-topic goal gets no frames.
 * A long row ships its passage holding most of the goal's words, cited by its lines in the
 * row (`man:tar(1) L120-141`, see ./hits.ts). Scores are in [0, 1], `y / (1 + y)` of
 * `y = words held × -bm25() / words²` (see {@link relevance}): bm25 orders, weighed by
 * the share of the goal's words a row holds.
 *
 * This file is yours: edit it freely (a JOIN to a content table, a snippet() column, ...).
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { type Candidate, definePlugin, type FrameKind, type Plugin } from "ocp-provider";
import { bestPassage, goalText, holdsEnough, lineLabel, MAX_GOAL_WORDS, passageChars, wordEvidence } from "./hits.js";

/** Options of {@link sqliteFts5}. */
export interface SqliteFts5Options {
  /** The SQLite database file. */
  file: string | URL;
  /** The FTS5 virtual table to search. */
  table: string;
  /** Which columns of `table` hold what. Only `content` is required. */
  columns: {
    /** The text a host gets. */
    content: string;
    /** A human title. */
    title?: string;
    /** A link to the original (`https://…`, `file:///…`); also shown as the citation. */
    uri?: string;
  };
  /** Plugin name (frame ids and provenance `method`); default `search-index`. */
  name?: string;
  /** Frame kind; default `doc`. */
  kind?: FrameKind;
  /** Most rows offered to the packer per query; default 50. */
  limit?: number;
  /**
   * The share of the goal's words (stop words aside) a row must hold to be offered, and two
   * words at least, and evidence of a subject (./hits.ts) unless it holds them all; 0 asks
   * for nothing. Default 0.4 (two words of two to five).
   */
  minCoverage?: number;
}

/** A plugin answering queries from an SQLite FTS5 table (see the file comment). */
export function sqliteFts5(options: SqliteFts5Options): Plugin {
  const limit = options.limit ?? 50;
  const minCoverage = options.minCoverage ?? 0.4;
  const name = options.name ?? "search-index";
  let db: Database.Database | undefined;
  let sql: Statements | undefined;

  return definePlugin({
    name,
    kinds: [options.kind ?? "doc"],
    setup() {
      db = openDatabase(options.file);
      checkTable(db, options);
      const { columns } = options;
      const table = quote(options.table);
      const rank = `bm25(${table})`;
      const select = [
        `rowid AS "rowid"`,
        `${quote(columns.content)} AS "content"`,
        columns.title === undefined ? `NULL AS "title"` : `${quote(columns.title)} AS "title"`,
        columns.uri === undefined ? `NULL AS "uri"` : `${quote(columns.uri)} AS "uri"`,
        `-${rank} AS "bm25"`,
      ];
      sql = {
        search: db.prepare(`SELECT ${select.join(", ")} FROM ${table} WHERE ${table} MATCH ? ORDER BY ${rank} LIMIT ?`),
        // Which of the rows found by any word hold a given word: one indexed lookup per word.
        holding: db.prepare(
          `SELECT rowid AS "rowid" FROM ${table} WHERE ${table} MATCH ? AND rowid IN (SELECT value FROM json_each(?))`,
        ),
        // How many rows hold a word, and how many there are: what a word is evidence of in this table (./hits.ts).
        frequency: db.prepare(`SELECT count(*) AS "rows" FROM ${table} WHERE ${table} MATCH ?`),
        rows: (db.prepare(`SELECT count(*) AS "rows" FROM ${table}`).get() as { rows: number }).rows,
      };
    },
    search(query) {
      if (sql === undefined) return [];
      const { search, holding, frequency, rows } = sql;
      const words = goalWords(query.query_text ?? query.goal);
      if (words.length === 0) return [];
      const all = search.all(ftsQuery(words, "AND"), limit);
      const everyWord = words.map(() => true);
      const found: { row: Row; held: boolean[] }[] = all.map((row) => ({ row, held: everyWord }));
      if (words.length > 1 && all.length < limit) {
        const seen = new Set(all.map((row) => row.rowid));
        const some = search.all(ftsQuery(words, "OR"), limit + all.length).filter((row) => !seen.has(row.rowid));
        const ids = JSON.stringify(some.map((row) => row.rowid));
        const held = new Map<number, boolean[]>(some.map((row) => [row.rowid, words.map(() => false)]));
        words.forEach((word, i) => {
          for (const { rowid } of holding.all(ftsQuery([word], "AND"), ids)) {
            const flags = held.get(rowid);
            if (flags !== undefined) flags[i] = true;
          }
        });
        for (const row of some) found.push({ row, held: held.get(row.rowid) ?? [] });
      }
      // Only rows holding some of the words are held to the evidence of those: one count per word.
      const evidence = found.some(({ held }) => held !== everyWord)
        ? words.map((word) => wordEvidence(frequency.get(ftsQuery([word], "AND"))?.rows ?? 0, rows))
        : [];
      const candidates: Candidate[] = [];
      for (const { row, held } of found) {
        if (candidates.length === limit) break;
        const content = row.content === null || row.content === undefined ? "" : String(row.content);
        if (content.trim() === "") continue;
        if (!holdsEnough(held, evidence, minCoverage)) continue;
        const passage = bestPassage(content, words, passageChars(query.max_tokens, query.max_frames));
        const uri = typeof row.uri === "string" && row.uri !== "" ? row.uri : undefined;
        const title = typeof row.title === "string" && row.title.trim() !== "" ? row.title : undefined;
        const where = uri ?? `sqlite:${options.table}/${row.rowid}`;
        const label = uri ?? title ?? `${options.table} row ${row.rowid}`;
        candidates.push({
          id: String(row.rowid),
          content: passage.text,
          relevance: relevance(held.filter(Boolean).length, words.length, Math.max(0, Number(row.bm25))),
          title: title ?? `${options.table} row ${row.rowid}`,
          // A passage of a long row is cited by its lines in the row's text, as the provenance is.
          citationLabel: passage.whole ? label : `${label} ${lineLabel(passage.lines)}`,
          uri,
          range: passage.lines,
          provenance: [{ type: "search-index", uri: where }],
        });
      }
      // bm25 weighed by the share of words held; rows holding every word were found first, so
      // the fallback never crowds them out of the limit.
      return candidates.sort((a, b) => b.relevance - a.relevance);
    },
    close() {
      db?.close();
    },
  });
}

/** The statements a plugin prepares when it sets up, and how many rows the table holds. */
interface Statements {
  search: Database.Statement<[string, number], Row>;
  holding: Database.Statement<[string, string], { rowid: number }>;
  frequency: Database.Statement<[string], { rows: number }>;
  rows: number;
}

/** A row as the search statement selects it. */
interface Row {
  rowid: number;
  content: unknown;
  title: unknown;
  uri: unknown;
  bm25: number;
}

/**
 * The part of a score that is the share of the goal's words held alone: a real hit never
 * shows as 0.00, even where the engine weighs its words about 0 (FTS5 does for words in
 * more than half of the rows), and hits weighed alike keep the engine's order.
 */
const MIN_SHARE = 0.05;

/**
 * A score in [0, 1] that means the same in any table: `y / (1 + y)` with
 * `y = held × bm25 / words²`, so a row holding every word of the goal scores by the
 * bm25 weight of one word, however long the goal, and one holding half of them a quarter
 * of it; plus `MIN_SHARE` × the share of words held, so that no real hit scores 0.
 */
function relevance(held: number, words: number, bm25: number): number {
  const y = (held * bm25) / (words * words);
  return (MIN_SHARE * held) / words + (1 - MIN_SHARE) * (y / (1 + y));
}

/**
 * Words that say how a goal is asked, not what it is about: a row holding "how" and
 * "are" is no answer to "how are token costs counted".
 */
const STOP = new Set(
  `a about after all also am an and any are as at be been but by can could did do does doing each every find for
  from get gets got had has have help how i if in into is it its just let like many may me might more most much my
  need no not of on one only or other our please should show so some such tell than that the their them then there
  these they thing things this those to too us use using very via want was way we were what when where whether
  which while who whom why will with would you your`.split(/\s+/),
);

/**
 * A goal's distinct words, lower-cased, stop words and single letters (the s of "today's")
 * dropped: the first {@link MAX_GOAL_WORDS} of the part of it read ({@link goalText}).
 */
export function goalWords(text: string): string[] {
  const words = new Set<string>();
  for (const [word] of goalText(text)
    .toLowerCase()
    .matchAll(/[\p{L}\p{N}_]+/gu)) {
    if (STOP.has(word) || (word.length < 2 && !/\d/.test(word))) continue;
    words.add(word);
    if (words.size === MAX_GOAL_WORDS) break;
  }
  return [...words];
}

/**
 * Turns words into an FTS5 query: each quoted (so `-`, `:`, `NEAR`, `*` and quotes in a
 * goal are text, never query syntax), and joined to match rows holding all of them or any.
 */
export function ftsQuery(words: readonly string[], join: "AND" | "OR"): string {
  return words.map((word) => `"${word.replaceAll('"', '""')}"`).join(join === "AND" ? " " : " OR ");
}

/** The database, read-only; a file that is not there is named, with the path it was looked for at. */
function openDatabase(file: string | URL): Database.Database {
  const path = pathOf(file);
  if (!existsSync(path)) throw new Error(`no SQLite database at ${resolve(path)}`);
  try {
    return new Database(path, { readonly: true, fileMustExist: true });
  } catch (error) {
    throw new Error(`cannot open the SQLite database at ${resolve(path)}: ${(error as Error).message}`);
  }
}

/** A clear error now beats an SQLite error at the first query. */
function checkTable(db: Database.Database, options: SqliteFts5Options): void {
  const row = db.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?").get(options.table) as
    | { sql: string | null }
    | undefined;
  if (row === undefined) throw new Error(`no table '${options.table}' in ${resolve(pathOf(options.file))}`);
  if (!/\busing\s+fts5\b/i.test(row.sql ?? "")) {
    throw new Error(`'${options.table}' is not an FTS5 table (CREATE VIRTUAL TABLE … USING fts5(…))`);
  }
  const have = new Set(
    (db.prepare(`PRAGMA table_info(${quote(options.table)})`).all() as { name: string }[]).map((column) => column.name),
  );
  for (const column of Object.values(options.columns)) {
    if (column !== undefined && !have.has(column)) {
      throw new Error(`table '${options.table}' has no column '${column}' (it has ${[...have].join(", ")})`);
    }
  }
}

/** A file option as a path. */
function pathOf(file: string | URL): string {
  return file instanceof URL ? fileURLToPath(file) : file;
}

/** An SQL identifier, quoted. */
function quote(identifier: string): string {
  return `"${identifier.replaceAll('"', '""')}"`;
}
