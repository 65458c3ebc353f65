/**
 * A plugin over an existing SQLite FTS5 table: name the table and which of its
 * columns hold the text, the title and the link, and each query becomes an FTS5
 * `MATCH` ranked by `bm25()`. The database is opened read-only; nothing is written.
 *
 * This file is yours: edit it freely (a JOIN to a content table, a snippet() column, ...).
 */
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { type Candidate, definePlugin, type FrameKind, type Plugin } from "ocp-provider";

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
}

/** A plugin answering queries from an SQLite FTS5 table (see the file comment). */
export function sqliteFts5(options: SqliteFts5Options): Plugin {
  const limit = options.limit ?? 50;
  const name = options.name ?? "search-index";
  let db: Database.Database | undefined;
  let statement: Database.Statement<[string, number], Record<string, unknown>> | undefined;

  return definePlugin({
    name,
    kinds: [options.kind ?? "doc"],
    scores: "unbounded", // bm25() is unbounded; we negate it, since FTS5 ranks better matches lower
    setup() {
      db = new Database(options.file instanceof URL ? fileURLToPath(options.file) : options.file, {
        readonly: true,
        fileMustExist: true,
      });
      checkTable(db, options);
      const { table, columns } = options;
      const select = [
        `rowid AS "rowid"`,
        `${quote(columns.content)} AS "content"`,
        columns.title === undefined ? `NULL AS "title"` : `${quote(columns.title)} AS "title"`,
        columns.uri === undefined ? `NULL AS "uri"` : `${quote(columns.uri)} AS "uri"`,
        `-bm25(${quote(table)}) AS "relevance"`,
      ];
      statement = db.prepare(
        `SELECT ${select.join(", ")} FROM ${quote(table)} WHERE ${quote(table)} MATCH ? ORDER BY bm25(${quote(table)}) LIMIT ?`,
      );
    },
    search(query) {
      if (statement === undefined) return [];
      const match = ftsQuery(query.query_text ?? query.goal);
      if (match === undefined) return [];
      const candidates: Candidate[] = [];
      for (const row of statement.all(match, limit)) {
        const content = row.content === null || row.content === undefined ? "" : String(row.content);
        if (content.trim() === "") continue;
        const uri = typeof row.uri === "string" && row.uri !== "" ? row.uri : undefined;
        const title = typeof row.title === "string" && row.title.trim() !== "" ? row.title : undefined;
        candidates.push({
          id: String(row.rowid),
          content,
          relevance: Math.max(0, Number(row.relevance)),
          title: title ?? `${options.table} row ${row.rowid}`,
          citationLabel: uri ?? title ?? `${options.table} row ${row.rowid}`,
          uri,
          provenance: [{ type: "search-index", uri: uri ?? `sqlite:${options.table}/${row.rowid}` }],
        });
      }
      return candidates;
    },
    close() {
      db?.close();
    },
  });
}

/**
 * Turns free text into an FTS5 query: each word quoted (so `-`, `:`, `NEAR`, `*` and
 * quotes in a goal are text, never query syntax) and OR-ed, so bm25 ranks documents
 * by how many of the words they hold and how rare those are.
 */
export function ftsQuery(text: string): string | undefined {
  const words = [...new Set(text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [])].slice(0, 32);
  return words.length === 0 ? undefined : words.map((word) => `"${word}"`).join(" OR ");
}

/** A clear error now beats an SQLite error at the first query. */
function checkTable(db: Database.Database, options: SqliteFts5Options): void {
  const row = db.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?").get(options.table) as
    | { sql: string | null }
    | undefined;
  if (row === undefined) throw new Error(`no table '${options.table}' in ${String(options.file)}`);
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

/** An SQL identifier, quoted. */
function quote(identifier: string): string {
  return `"${identifier.replaceAll('"', '""')}"`;
}
