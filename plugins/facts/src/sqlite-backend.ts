/**
 * The embedded backend: one SQLite file through better-sqlite3, nothing to start.
 *
 * - WAL journal with `synchronous = NORMAL`: readers never block the writer, and
 *   a committed transaction survives the process being killed (only a power
 *   loss can take back the last commits).
 * - Writes are `BEGIN IMMEDIATE` transactions, so two processes writing the same
 *   file queue up (up to `busy_timeout`) instead of failing half-way.
 * - Text search is an FTS5 index over subject, predicate and statement (Porter
 *   stemming, diacritics folded), kept in step with the table by triggers.
 *   `secure-delete` is on, so an erased statement leaves no tokens behind. The
 *   index keeps which rows hold a token and nothing more (`detail = none`,
 *   `columnsize = 0`): search asks only "which facts hold all these words"
 *   (see search.ts), and a smaller index is most of ingest speed.
 * - The WAL is checkpointed every 10,000 pages rather than SQLite's 1,000: an
 *   import rewrites the same index pages batch after batch, and each checkpoint
 *   copies them to the database file again.
 */
import { existsSync } from "node:fs";
import { basename, extname, resolve } from "node:path";
import Database from "better-sqlite3";
import {
  type Clock,
  clockMillis,
  type ErasureRow,
  type FactBackend,
  type ListFilter,
  type Reader,
  type Row,
  type TimeFilter,
  type WriteTx,
} from "./backend.js";
import { FACT_ERRORS, FactError } from "./errors.js";
import type { FactOp } from "./model.js";

/** The layout version this code reads and writes. */
const SCHEMA_VERSION = "1";

const SCHEMA = `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE state (singleton INTEGER PRIMARY KEY CHECK (singleton = 1), clock INTEGER NOT NULL, next_id INTEGER NOT NULL);
INSERT INTO state VALUES (1, 0, 1);
CREATE TABLE facts (
  rid INTEGER PRIMARY KEY,
  id INTEGER NOT NULL,
  version INTEGER NOT NULL,
  subject TEXT NOT NULL,
  predicate TEXT NOT NULL,
  statement TEXT NOT NULL,
  valid_from INTEGER NOT NULL,
  valid_to INTEGER,
  recorded_at INTEGER NOT NULL,
  superseded_at INTEGER,
  source TEXT,
  method TEXT,
  author TEXT,
  op TEXT NOT NULL,
  note TEXT,
  actor TEXT,
  UNIQUE (id, version),
  CHECK (valid_to IS NULL OR valid_to >= valid_from),
  CHECK (superseded_at IS NULL OR superseded_at >= recorded_at)
);
CREATE UNIQUE INDEX facts_current ON facts (id) WHERE superseded_at IS NULL;
CREATE INDEX facts_subject ON facts (subject, predicate);
CREATE VIRTUAL TABLE facts_text USING fts5(
  subject, predicate, statement,
  content = 'facts', content_rowid = 'rid',
  tokenize = 'porter unicode61 remove_diacritics 2',
  detail = none, columnsize = 0
);
INSERT INTO facts_text (facts_text, rank) VALUES ('secure-delete', 1);
INSERT INTO facts_text (facts_text, rank) VALUES ('automerge', 16);
CREATE TRIGGER facts_text_insert AFTER INSERT ON facts BEGIN
  INSERT INTO facts_text (rowid, subject, predicate, statement) VALUES (new.rid, new.subject, new.predicate, new.statement);
END;
CREATE TRIGGER facts_text_delete AFTER DELETE ON facts BEGIN
  INSERT INTO facts_text (facts_text, rowid, subject, predicate, statement)
  VALUES ('delete', old.rid, old.subject, old.predicate, old.statement);
END;
CREATE TABLE predicates (name TEXT PRIMARY KEY, functional INTEGER NOT NULL);
CREATE TABLE erasures (at INTEGER NOT NULL, ids TEXT NOT NULL, versions INTEGER NOT NULL, reason TEXT NOT NULL, actor TEXT);
`;

/** Options of {@link openSqliteBackend}. */
export interface SqliteBackendOptions {
  /** The database file. */
  file: string;
  /** Create the store if the file does not exist (writers); readers pass false and get a clear error instead. */
  create: boolean;
  /** System-time source; default `Date.now`. */
  clock?: Clock;
  /** Page cache in MiB; default 64. */
  cacheMb?: number;
}

interface SqlRow {
  id: number;
  version: number;
  subject: string;
  predicate: string;
  statement: string;
  valid_from: number;
  valid_to: number | null;
  recorded_at: number;
  superseded_at: number | null;
  source: string | null;
  method: string | null;
  author: string | null;
  op: FactOp;
  note: string | null;
  actor: string | null;
}

const COLUMNS =
  "id, version, subject, predicate, statement, valid_from, valid_to, recorded_at, superseded_at, source, method, author, op, note, actor";

const CURRENT_FOR = `SELECT ${COLUMNS} FROM facts WHERE subject = ? AND predicate = ? AND superseded_at IS NULL ORDER BY id`;

/**
 * Most rows one INSERT takes (15 parameters each, under SQLite's 32,766). Rows go in
 * as multi-row INSERTs because every statement that fires the full-text trigger
 * opens a statement savepoint, and FTS5 writes its pending terms out as a new
 * segment at each savepoint: one row per statement made a segment per row, to be
 * merged again, which cost more than the rest of the insert together.
 */
const INSERT_CHUNK = 1024;
const ROW_PARAMETERS = `(${COLUMNS.split(", ").fill("?").join(", ")})`;
const CLOSE = "UPDATE facts SET superseded_at = ? WHERE id = ? AND version = ? AND superseded_at IS NULL";

function toRow(row: SqlRow): Row {
  return {
    id: row.id,
    version: row.version,
    subject: row.subject,
    predicate: row.predicate,
    statement: row.statement,
    validFrom: row.valid_from,
    validTo: row.valid_to,
    recordedAt: row.recorded_at,
    supersededAt: row.superseded_at,
    source: row.source,
    method: row.method,
    author: row.author,
    op: row.op,
    note: row.note,
    actor: row.actor,
  };
}

/** An FTS5 string literal: a term is matched as a token (or phrase), never parsed as query syntax. */
export function ftsQuote(term: string): string {
  return `"${term.replaceAll('"', '""')}"`;
}

/** The SQL condition selecting versions visible at a time filter (parameters: validAt ×2 [, knownAt ×2]). */
function visibleAt(time: TimeFilter, alias = "f"): { sql: string; params: number[] } {
  const valid = `${alias}.valid_from <= ? AND (${alias}.valid_to IS NULL OR ${alias}.valid_to > ?)`;
  if (time.knownAt === undefined)
    return { sql: `${valid} AND ${alias}.superseded_at IS NULL`, params: [time.validAt, time.validAt] };
  return {
    sql: `${valid} AND ${alias}.recorded_at <= ? AND (${alias}.superseded_at IS NULL OR ${alias}.superseded_at > ?)`,
    params: [time.validAt, time.validAt, time.knownAt, time.knownAt],
  };
}

/** Opens (or, with `create`, creates) a fact store in a SQLite file. */
export function openSqliteBackend(options: SqliteBackendOptions): FactBackend {
  const file = resolve(options.file);
  if (!options.create && !existsSync(file)) {
    throw new FactError(
      FACT_ERRORS.NO_STORE,
      `no fact store at ${file} (create one with 'ocp-facts assert' or 'ocp-facts import')`,
    );
  }
  let db: Database.Database;
  try {
    db = new Database(file, { fileMustExist: !options.create });
  } catch (error) {
    throw new FactError(FACT_ERRORS.NO_STORE, `cannot open ${file}: ${(error as Error).message}`, { cause: error });
  }
  try {
    db.pragma("busy_timeout = 5000");
    // Looked at before anything is written: a file that is not a fact store is refused as it
    // was found (switching it to WAL alone would rewrite its header and add files beside it).
    const empty = checkStore(db, file, options.create);
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = NORMAL");
    db.pragma("secure_delete = ON");
    db.pragma("wal_autocheckpoint = 10000");
    db.pragma(`cache_size = -${Math.round((options.cacheMb ?? 64) * 1024)}`);
    if (empty) createSchema(db);
  } catch (error) {
    db.close();
    if (error instanceof FactError) throw error;
    throw new FactError(FACT_ERRORS.NO_STORE, `cannot open ${file}: ${(error as Error).message}`, { cause: error });
  }
  return new SqliteBackend(db, file, options.clock ?? Date.now);
}

/** Throws unless `db` holds a store of this layout or, with `create`, nothing at all; true when it is empty. */
function checkStore(db: Database.Database, file: string, create: boolean): boolean {
  const hasMeta = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'").get() !== undefined;
  if (!hasMeta) {
    const empty = db.prepare("SELECT count(*) AS n FROM sqlite_master").get() as { n: number };
    if (!create || empty.n > 0) {
      throw new FactError(
        FACT_ERRORS.NO_STORE,
        `${file} is ${empty.n > 0 ? "a SQLite database but " : ""}not an ocp-facts store`,
      );
    }
    return true;
  }
  const version = db.prepare("SELECT value FROM meta WHERE key = 'schema'").get() as { value: string } | undefined;
  if (version?.value !== SCHEMA_VERSION) {
    throw new FactError(
      FACT_ERRORS.NO_STORE,
      `${file} has store layout ${version?.value ?? "?"}, but this ocp-facts reads layout ${SCHEMA_VERSION}`,
    );
  }
  return false;
}

/** Makes the tables of a new store; a second process creating the same store at once finds them made. */
function createSchema(db: Database.Database): void {
  db.transaction(() => {
    if (db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'").get() !== undefined) return;
    db.exec(SCHEMA);
    db.prepare("INSERT INTO meta VALUES ('schema', ?)").run(SCHEMA_VERSION);
  }).immediate();
}

class SqliteBackend implements FactBackend {
  readonly kind = "sqlite" as const;
  readonly local = true;
  readonly location: string;
  readonly defaultName: string;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly statements = new Map<string, Database.Statement>();
  private readonly inserts = new Map<number, Database.Statement>();

  constructor(
    private readonly db: Database.Database,
    file: string,
    private readonly clock: Clock,
  ) {
    this.location = file;
    this.defaultName = basename(file, extname(file)) || "facts";
  }

  /** A cached prepared statement. */
  private sql(text: string): Database.Statement {
    let statement = this.statements.get(text);
    if (statement === undefined) {
      statement = this.db.prepare(text);
      this.statements.set(text, statement);
    }
    return statement;
  }

  /** The cached INSERT of `size` rows (see {@link INSERT_CHUNK}). */
  private insertStatement(size: number): Database.Statement {
    let statement = this.inserts.get(size);
    if (statement === undefined) {
      statement = this.db.prepare(
        `INSERT INTO facts (${COLUMNS}) VALUES ${Array(size).fill(ROW_PARAMETERS).join(", ")}`,
      );
      this.inserts.set(size, statement);
    }
    return statement;
  }

  /**
   * One operation at a time on the connection: better-sqlite3 is synchronous, but
   * a transaction spans awaits, and nothing else may run inside it meanwhile.
   */
  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => {});
    return run;
  }

  read<T>(fn: (reader: Reader) => Promise<T>): Promise<T> {
    return this.exclusive(async () => {
      // One snapshot for every statement of the read, even while another process writes.
      this.db.exec("BEGIN");
      try {
        return await fn(this.reader());
      } finally {
        this.db.exec("COMMIT");
      }
    });
  }

  write<T>(fn: (tx: WriteTx) => Promise<T>): Promise<T> {
    return this.exclusive(async () => {
      this.db.exec("BEGIN IMMEDIATE");
      try {
        let now: number | undefined;
        const tick = () => {
          now ??= (
            this.sql("UPDATE state SET clock = max(clock + 1, ?) RETURNING clock").get(
              Math.floor(clockMillis(this.clock)),
            ) as { clock: number }
          ).clock;
          return now;
        };
        const result = await fn(this.writer(tick));
        this.db.exec("COMMIT");
        return result;
      } catch (error) {
        if (this.db.inTransaction) this.db.exec("ROLLBACK");
        throw error;
      }
    });
  }

  purge(): Promise<void> {
    // secure_delete zeroes freed space and FTS5 secure-delete drops the tokens; the
    // WAL still holds earlier images of the pages until it is checkpointed and cut.
    return this.exclusive(async () => {
      this.db.pragma("wal_checkpoint(TRUNCATE)");
    });
  }

  analyze(): Promise<void> {
    return this.exclusive(async () => {
      // A bounded sample per index keeps this to moments even on millions of rows.
      this.db.pragma("analysis_limit = 1000");
      this.db.pragma("optimize");
    });
  }

  async close(): Promise<void> {
    await this.queue;
    if (this.db.open) this.db.close();
  }

  private reader(): Reader {
    const all = (text: string, ...params: unknown[]) => (this.sql(text).all(...params) as SqlRow[]).map(toRow);
    return {
      current: async (id) => {
        const row = this.sql(`SELECT ${COLUMNS} FROM facts WHERE id = ? AND superseded_at IS NULL`).get(id) as
          | SqlRow
          | undefined;
        return row === undefined ? undefined : toRow(row);
      },
      versionsOf: async (ids) =>
        all(
          `SELECT ${COLUMNS} FROM facts WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id, version`,
          JSON.stringify(ids),
        ),
      historyOfSubject: async (subject) =>
        all(
          `SELECT ${COLUMNS} FROM facts WHERE id IN (SELECT id FROM facts WHERE subject = ?) ORDER BY id, version`,
          subject,
        ),
      currentFor: async (subject, predicate) => all(CURRENT_FOR, subject, predicate),
      // In-process, a lookup per pair is as cheap as one statement for all and keeps the index plan obvious.
      currentForPairs: async (pairs) => pairs.flatMap(({ subject, predicate }) => all(CURRENT_FOR, subject, predicate)),
      list: async (filter: ListFilter) => {
        const visible = visibleAt(filter.time);
        const where = [visible.sql];
        const params: unknown[] = [...visible.params];
        if (filter.subject !== undefined) {
          where.push("f.subject = ?");
          params.push(filter.subject);
        }
        if (filter.predicate !== undefined) {
          where.push("f.predicate = ?");
          params.push(filter.predicate);
        }
        return all(
          `SELECT ${COLUMNS} FROM facts f WHERE ${where.join(" AND ")} ORDER BY f.subject, f.predicate, f.valid_from, f.id LIMIT ?`,
          ...params,
          filter.limit,
        );
      },
      countTerm: async (term, cap) =>
        (
          this.sql("SELECT count(*) AS n FROM (SELECT 1 FROM facts_text WHERE facts_text MATCH ? LIMIT ?)").get(
            ftsQuote(term),
            cap,
          ) as { n: number }
        ).n,
      matchAll: async (terms, time, limit) => {
        const visible = visibleAt(time);
        return all(
          `SELECT ${COLUMNS.replace(/(\w+)/g, "f.$1")} FROM facts_text JOIN facts f ON f.rid = facts_text.rowid
           WHERE facts_text MATCH ? AND ${visible.sql} LIMIT ?`,
          terms.map(ftsQuote).join(" "),
          ...visible.params,
          limit,
        );
      },
      functionalPredicates: async () =>
        new Set(
          (this.sql("SELECT name FROM predicates WHERE functional = 1").all() as { name: string }[]).map((r) => r.name),
        ),
      scan: async (after, limit) => {
        const rows = this.sql(`SELECT rid, ${COLUMNS} FROM facts WHERE rid > ? ORDER BY rid LIMIT ?`).all(
          after,
          limit,
        ) as (SqlRow & {
          rid: number;
        })[];
        return { rows: rows.map(toRow), cursor: rows.at(-1)?.rid ?? after };
      },
      erasures: async () =>
        (
          this.sql("SELECT at, ids, versions, reason, actor FROM erasures ORDER BY rowid").all() as (Omit<
            ErasureRow,
            "ids"
          > & {
            ids: string;
          })[]
        ).map((row) => ({ ...row, ids: JSON.parse(row.ids) as number[] })),
      firstFreeId: async () => (this.sql("SELECT next_id FROM state").get() as { next_id: number }).next_id,
    };
  }

  private writer(tick: () => number): WriteTx {
    const run = (text: string, ...params: unknown[]) => this.sql(text).run(...params);
    return {
      ...this.reader(),
      now: async () => tick(),
      nextId: async () =>
        (this.sql("UPDATE state SET next_id = next_id + 1 RETURNING next_id - 1 AS id").get() as { id: number }).id,
      reserveIds: async (maxId) => {
        const before = (this.sql("SELECT next_id FROM state").get() as { next_id: number }).next_id;
        run("UPDATE state SET next_id = max(next_id, ? + 1)", maxId);
        return before;
      },
      advanceClock: async (time) => {
        run("UPDATE state SET clock = max(clock, ?)", time);
      },
      insert: async (rows) => {
        let at = 0;
        while (at < rows.length) {
          // Power-of-two chunks: at most a dozen distinct statements to prepare and cache, rows kept in order.
          let size = INSERT_CHUNK;
          while (size > rows.length - at) size /= 2;
          const values: unknown[] = [];
          for (const r of rows.slice(at, at + size)) {
            values.push(
              r.id,
              r.version,
              r.subject,
              r.predicate,
              r.statement,
              r.validFrom,
              r.validTo,
              r.recordedAt,
              r.supersededAt,
              r.source,
              r.method,
              r.author,
              r.op,
              r.note,
              r.actor,
            );
          }
          this.insertStatement(size).run(values);
          at += size;
        }
      },
      close: async (id, version) => {
        run(CLOSE, tick(), id, version);
      },
      closeAll: async (versions) => {
        const now = tick();
        for (const { id, version } of versions) run(CLOSE, now, id, version);
      },
      amendValidTo: async (id, version, validTo) => {
        run("UPDATE facts SET valid_to = ? WHERE id = ? AND version = ?", validTo, id, version);
      },
      remove: async (ids) =>
        run("DELETE FROM facts WHERE id IN (SELECT value FROM json_each(?))", JSON.stringify(ids)).changes,
      logErasure: async (entry) => {
        run(
          "INSERT INTO erasures (at, ids, versions, reason, actor) VALUES (?, ?, ?, ?, ?)",
          entry.at,
          JSON.stringify(entry.ids),
          entry.versions,
          entry.reason,
          entry.actor,
        );
      },
      setFunctional: async (predicate, functional) => {
        run(
          "INSERT INTO predicates (name, functional) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET functional = excluded.functional",
          predicate,
          functional ? 1 : 0,
        );
      },
    };
  }
}
