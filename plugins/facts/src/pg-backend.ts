/**
 * The PostgreSQL backend, for teams and scale: the same tables and rules as
 * SQLite, in a schema of its own (`ocp_facts` by default).
 *
 * - Text search: a stored `tsvector` (English configuration: stemming and stop
 *   words) of the text with accents folded as SQLite folds them (`fold.ts`, applied
 *   here as rows are inserted), with a GIN index; queries fold alike. Ranking happens
 *   in `search.ts`, as for SQLite. Stores made before accent folding (layout 1, whose
 *   `tsv` the server generates from the plain text) are still read and written without
 *   it; export and import into a new schema to gain it.
 * - Writers serialise on the `state` row, which also hands out system time, so
 *   system time increases in commit order even with many writers on many
 *   machines; the time comes from the server's clock, not the clients'.
 * - Reads run in a read-only REPEATABLE READ transaction: one snapshot each.
 *
 * It talks to anything shaped like a `pg.Pool` — a real server, or PGlite in tests.
 */
import type { Clock, ErasureRow, FactBackend, ListFilter, Reader, Row, TimeFilter, WriteTx } from "./backend.js";
import { clockMillis } from "./backend.js";
import { FACT_ERRORS, FactError } from "./errors.js";
import { fold } from "./fold.js";
import type { FactOp } from "./model.js";

/** What the backend needs of a connection: `pg.PoolClient` has it. */
export interface PgConnection {
  query(text: string, params?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
  release(error?: Error | boolean): void;
}

/** What the backend needs of a pool: `pg.Pool` has it. */
export interface PgPool {
  connect(): Promise<PgConnection>;
  end(): Promise<void>;
}

/** Options of {@link openPgBackend}. */
export interface PgBackendOptions {
  pool: PgPool;
  /** Shown in messages; never includes credentials. */
  location: string;
  /** Default store name for `fact://` URIs (the database name). */
  name: string;
  /** True when the server is on this machine (loopback or a Unix socket). */
  local: boolean;
  /** Schema holding the tables; default `ocp_facts`. */
  schema?: string;
  /** Create the tables when missing (writers). */
  create: boolean;
  /** System-time source; default the server's clock. */
  clock?: Clock;
}

/** The layout new stores get. Layout 1 is layout 2 without accent folding. */
const SCHEMA_VERSION = "2";
const READABLE_LAYOUTS = new Set(["1", "2"]);
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;
const COLUMNS =
  "id, version, subject, predicate, statement, valid_from, valid_to, recorded_at, superseded_at, source, method, author, op, note, actor";
/** Postgres types of {@link COLUMNS}, for `unnest` bulk inserts. */
const COLUMN_TYPES = [
  "bigint",
  "int",
  "text",
  "text",
  "text",
  "bigint",
  "bigint",
  "bigint",
  "bigint",
  "text",
  "text",
  "text",
  "text",
  "text",
  "text",
];

function schemaSql(s: string): string[] {
  return [
    `CREATE SCHEMA IF NOT EXISTS ${s}`,
    `CREATE TABLE ${s}.meta (key text PRIMARY KEY, value text NOT NULL)`,
    `CREATE TABLE ${s}.state (singleton int PRIMARY KEY CHECK (singleton = 1), clock bigint NOT NULL, next_id bigint NOT NULL)`,
    `INSERT INTO ${s}.state VALUES (1, 0, 1)`,
    `CREATE TABLE ${s}.facts (
      rid bigserial PRIMARY KEY,
      id bigint NOT NULL,
      version int NOT NULL,
      subject text NOT NULL,
      predicate text NOT NULL,
      statement text NOT NULL,
      valid_from bigint NOT NULL,
      valid_to bigint,
      recorded_at bigint NOT NULL,
      superseded_at bigint,
      source text,
      method text,
      author text,
      op text NOT NULL,
      note text,
      actor text,
      tsv tsvector NOT NULL,
      UNIQUE (id, version),
      CHECK (valid_to IS NULL OR valid_to >= valid_from),
      CHECK (superseded_at IS NULL OR superseded_at >= recorded_at)
    )`,
    `CREATE UNIQUE INDEX facts_current ON ${s}.facts (id) WHERE superseded_at IS NULL`,
    `CREATE INDEX facts_subject ON ${s}.facts (subject, predicate)`,
    `CREATE INDEX facts_text ON ${s}.facts USING gin (tsv)`,
    `CREATE TABLE ${s}.predicates (name text PRIMARY KEY, functional boolean NOT NULL)`,
    `CREATE TABLE ${s}.erasures (seq bigserial PRIMARY KEY, at bigint NOT NULL, ids jsonb NOT NULL, versions int NOT NULL, reason text NOT NULL, actor text)`,
    `INSERT INTO ${s}.meta VALUES ('schema', '${SCHEMA_VERSION}')`,
  ];
}

const num = (value: unknown): number => Number(value);
const numOrNull = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));
const strOrNull = (value: unknown): string | null => (value === null || value === undefined ? null : String(value));

function toRow(row: Record<string, unknown>): Row {
  return {
    id: num(row.id),
    version: num(row.version),
    subject: String(row.subject),
    predicate: String(row.predicate),
    statement: String(row.statement),
    validFrom: num(row.valid_from),
    validTo: numOrNull(row.valid_to),
    recordedAt: num(row.recorded_at),
    supersededAt: numOrNull(row.superseded_at),
    source: strOrNull(row.source),
    method: strOrNull(row.method),
    author: strOrNull(row.author),
    op: String(row.op) as FactOp,
    note: strOrNull(row.note),
    actor: strOrNull(row.actor),
  };
}

/** Collects positional parameters while SQL is built: `p(value)` returns `$n`. */
function params(): { p: (value: unknown) => string; values: unknown[] } {
  const values: unknown[] = [];
  return { p: (value) => `$${values.push(value)}`, values };
}

function visibleAt(time: TimeFilter, p: (value: unknown) => string): string {
  const valid = `f.valid_from <= ${p(time.validAt)} AND (f.valid_to IS NULL OR f.valid_to > ${p(time.validAt)})`;
  if (time.knownAt === undefined) return `${valid} AND f.superseded_at IS NULL`;
  return `${valid} AND f.recorded_at <= ${p(time.knownAt)} AND (f.superseded_at IS NULL OR f.superseded_at > ${p(time.knownAt)})`;
}

/** Opens the fact store in `schema` on a PostgreSQL pool, creating the tables when asked to. */
export async function openPgBackend(options: PgBackendOptions): Promise<FactBackend> {
  const schema = options.schema ?? "ocp_facts";
  if (!SCHEMA_NAME.test(schema)) {
    throw new FactError(
      FACT_ERRORS.CONFIG,
      `schema '${schema}' must be a lower-case SQL identifier (letters, digits, _)`,
    );
  }
  const client = await options.pool.connect();
  let layout = SCHEMA_VERSION;
  try {
    await client.query("BEGIN");
    // Two processes creating the same store at once: the second waits, then finds it made.
    await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`ocp-facts:${schema}`]);
    const found = await client.query("SELECT to_regclass($1) AS meta", [`${schema}.meta`]);
    if (found.rows[0]?.meta === null || found.rows[0]?.meta === undefined) {
      if (!options.create) {
        throw new FactError(
          FACT_ERRORS.NO_STORE,
          `no fact store in schema '${schema}' at ${options.location} (create one with 'ocp-facts assert' or 'ocp-facts import')`,
        );
      }
      for (const statement of schemaSql(schema)) await client.query(statement);
    } else {
      const version = await client.query(`SELECT value FROM ${schema}.meta WHERE key = 'schema'`);
      layout = String(version.rows[0]?.value ?? "?");
      if (!READABLE_LAYOUTS.has(layout)) {
        throw new FactError(
          FACT_ERRORS.NO_STORE,
          `schema '${schema}' at ${options.location} has store layout ${layout}, but this ocp-facts reads layouts ${[...READABLE_LAYOUTS].join(" and ")}`,
        );
      }
    }
    await client.query("COMMIT");
    client.release();
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    client.release(error instanceof FactError ? undefined : (error as Error));
    throw error;
  }
  return new PgBackend(options.pool, schema, options, layout !== "1");
}

class PgBackend implements FactBackend {
  readonly kind = "postgresql" as const;
  readonly location: string;
  readonly defaultName: string;
  readonly local: boolean;

  constructor(
    private readonly pool: PgPool,
    private readonly s: string,
    options: PgBackendOptions,
    /** Whether the stored text is accent-folded (layout 2): queries must then fold alike. */
    private readonly folds: boolean,
  ) {
    this.location = options.location;
    this.defaultName = options.name;
    this.local = options.local;
    this.clock = options.clock;
  }

  private readonly clock: Clock | undefined;

  /** Query words as the stored text was indexed: accent-folded from layout 2 on. */
  private queryWords(words: string): string {
    return this.folds ? fold(words) : words;
  }

  private async transaction<T>(begin: string, fn: (client: PgConnection) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query(begin);
      const result = await fn(client);
      await client.query("COMMIT");
      client.release();
      return result;
    } catch (error) {
      let broken: Error | undefined;
      await client.query("ROLLBACK").catch((rollbackError: Error) => {
        broken = rollbackError; // the connection is unusable: let the pool drop it
      });
      client.release(broken);
      throw error;
    }
  }

  read<T>(fn: (reader: Reader) => Promise<T>): Promise<T> {
    return this.transaction("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", (client) => fn(this.reader(client)));
  }

  write<T>(fn: (tx: WriteTx) => Promise<T>): Promise<T> {
    return this.transaction("BEGIN", async (client) => {
      // Lock the state row until commit: writers queue here, so each sees the last one's
      // writes, and system time (taken from this row) follows commit order.
      await client.query(`SELECT clock FROM ${this.s}.state FOR UPDATE`);
      let now: Promise<number> | undefined;
      const tick = () => {
        now ??= client
          .query(
            `UPDATE ${this.s}.state SET clock = greatest(clock + 1,
               coalesce($1::bigint, floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint)) RETURNING clock`,
            [this.clock === undefined ? null : Math.floor(clockMillis(this.clock))],
          )
          .then((result) => num(result.rows[0]?.clock));
        return now;
      };
      return fn(this.writer(client, tick));
    });
  }

  async purge(): Promise<void> {
    // Deleted rows stay in the heap until VACUUM reclaims them; running it here would
    // stall a large table, so the README tells operators to (and to mind backups).
  }

  async analyze(): Promise<void> {
    // Autovacuum gets to a freshly loaded table eventually; until then the planner has no
    // statistics (it may scan the whole table for a full-text match), and without the
    // visibility map every counted match costs a heap fetch.
    const client = await this.pool.connect();
    try {
      await client.query(`VACUUM (ANALYZE) ${this.s}.facts`);
      client.release();
    } catch (error) {
      client.release(error as Error);
      throw error;
    }
  }

  async close(): Promise<void> {
    await this.pool.end();
  }

  private reader(client: PgConnection): Reader {
    const s = this.s;
    const rows = async (text: string, values: unknown[]) => (await client.query(text, values)).rows.map(toRow);
    return {
      current: async (id) =>
        (await rows(`SELECT ${COLUMNS} FROM ${s}.facts WHERE id = $1 AND superseded_at IS NULL`, [id]))[0],
      versionsOf: (ids) =>
        rows(`SELECT ${COLUMNS} FROM ${s}.facts WHERE id = ANY($1::bigint[]) ORDER BY id, version`, [[...ids]]),
      historyOfSubject: (subject) =>
        rows(
          `SELECT ${COLUMNS} FROM ${s}.facts WHERE id IN (SELECT id FROM ${s}.facts WHERE subject = $1) ORDER BY id, version`,
          [subject],
        ),
      currentFor: (subject, predicate) =>
        rows(
          `SELECT ${COLUMNS} FROM ${s}.facts WHERE subject = $1 AND predicate = $2 AND superseded_at IS NULL ORDER BY id`,
          [subject, predicate],
        ),
      currentForPairs: async (pairs) => {
        // Plain `= ANY` lists, so the (subject, predicate) index drives the lookup whatever the
        // statistics say: joined with unnest(), a table not yet analysed got every current row
        // scanned and hashed, per batch. The few rows of other pairs among them are dropped here.
        const wanted = new Set(pairs.map((pair) => `${pair.subject}\u0000${pair.predicate}`));
        const found = await rows(
          `SELECT ${COLUMNS} FROM ${s}.facts
           WHERE subject = ANY($1::text[]) AND predicate = ANY($2::text[]) AND superseded_at IS NULL`,
          [[...new Set(pairs.map((pair) => pair.subject))], [...new Set(pairs.map((pair) => pair.predicate))]],
        );
        return found.filter((row) => wanted.has(`${row.subject}\u0000${row.predicate}`));
      },
      list: (filter: ListFilter) => {
        const { p, values } = params();
        const where = [visibleAt(filter.time, p)];
        if (filter.subject !== undefined) where.push(`f.subject = ${p(filter.subject)}`);
        if (filter.predicate !== undefined) where.push(`f.predicate = ${p(filter.predicate)}`);
        return rows(
          `SELECT ${COLUMNS} FROM ${s}.facts f WHERE ${where.join(" AND ")}
           ORDER BY f.subject, f.predicate, f.valid_from, f.id LIMIT ${p(filter.limit)}`,
          values,
        );
      },
      countTerm: async (term, cap) => {
        const result = await client.query(
          `SELECT count(*)::int AS n FROM (SELECT 1 FROM ${s}.facts WHERE tsv @@ plainto_tsquery('english', $1) LIMIT $2) x`,
          [this.queryWords(term), cap],
        );
        return num(result.rows[0]?.n);
      },
      matchAll: (terms, time, limit) => {
        const { p, values } = params();
        const query = `plainto_tsquery('english', ${p(this.queryWords(terms.join(" ")))})`;
        const where = visibleAt(time, p);
        return rows(
          `SELECT ${COLUMNS.replace(/(\w+)/g, "f.$1")} FROM ${s}.facts f WHERE f.tsv @@ ${query} AND ${where} LIMIT ${p(limit)}`,
          values,
        );
      },
      functionalPredicates: async () =>
        new Set(
          (await client.query(`SELECT name FROM ${s}.predicates WHERE functional`)).rows.map((row) => String(row.name)),
        ),
      scan: async (after, limit) => {
        const result = await client.query(
          `SELECT rid, ${COLUMNS} FROM ${s}.facts WHERE rid > $1 ORDER BY rid LIMIT $2`,
          [after, limit],
        );
        return { rows: result.rows.map(toRow), cursor: result.rows.length > 0 ? num(result.rows.at(-1)?.rid) : after };
      },
      erasures: async () =>
        (await client.query(`SELECT at, ids, versions, reason, actor FROM ${s}.erasures ORDER BY seq`)).rows.map(
          (row) => ({
            at: num(row.at),
            ids: (typeof row.ids === "string" ? JSON.parse(row.ids) : row.ids) as number[],
            versions: num(row.versions),
            reason: String(row.reason),
            actor: strOrNull(row.actor),
          }),
        ),
      firstFreeId: async () => num((await client.query(`SELECT next_id FROM ${s}.state`)).rows[0]?.next_id),
    };
  }

  private writer(client: PgConnection, tick: () => Promise<number>): WriteTx {
    const s = this.s;
    const run = (text: string, values: unknown[]) => client.query(text, values);
    return {
      ...this.reader(client),
      now: tick,
      nextId: async () =>
        num((await run(`UPDATE ${s}.state SET next_id = next_id + 1 RETURNING next_id - 1 AS id`, [])).rows[0]?.id),
      reserveIds: async (maxId) => {
        // The state row is locked by this transaction (see write()): the value read is the one replaced.
        const before = num((await run(`SELECT next_id FROM ${s}.state`, [])).rows[0]?.next_id);
        await run(`UPDATE ${s}.state SET next_id = greatest(next_id, $1::bigint + 1)`, [maxId]);
        return before;
      },
      advanceClock: async (time) => {
        await run(`UPDATE ${s}.state SET clock = greatest(clock, $1::bigint)`, [time]);
      },
      insert: async (all) => {
        // unnest() turns one array per column into rows: one round trip per chunk, not per row.
        const unnest = COLUMN_TYPES.map((type, i) => `$${i + 1}::${type}[]`).join(", ");
        const statement = this.folds
          ? `INSERT INTO ${s}.facts (${COLUMNS}, tsv)
             SELECT ${COLUMNS}, to_tsvector('english'::regconfig, folded)
             FROM unnest(${unnest}, $${COLUMN_TYPES.length + 1}::text[]) AS u(${COLUMNS}, folded)`
          : // Layout 1: the server generates tsv from the plain text.
            `INSERT INTO ${s}.facts (${COLUMNS}) SELECT * FROM unnest(${unnest})`;
        for (let start = 0; start < all.length; start += 5000) {
          const chunk = all.slice(start, start + 5000);
          const columns = [
            chunk.map((r) => r.id),
            chunk.map((r) => r.version),
            chunk.map((r) => r.subject),
            chunk.map((r) => r.predicate),
            chunk.map((r) => r.statement),
            chunk.map((r) => r.validFrom),
            chunk.map((r) => r.validTo),
            chunk.map((r) => r.recordedAt),
            chunk.map((r) => r.supersededAt),
            chunk.map((r) => r.source),
            chunk.map((r) => r.method),
            chunk.map((r) => r.author),
            chunk.map((r) => r.op),
            chunk.map((r) => r.note),
            chunk.map((r) => r.actor),
          ];
          if (this.folds) columns.push(chunk.map((r) => fold(`${r.subject} ${r.predicate} ${r.statement}`)));
          await run(statement, columns);
        }
      },
      close: async (id, version) => {
        await run(`UPDATE ${s}.facts SET superseded_at = $1 WHERE id = $2 AND version = $3 AND superseded_at IS NULL`, [
          await tick(),
          id,
          version,
        ]);
      },
      closeAll: async (versions) => {
        if (versions.length === 0) return;
        // Driven by the current-version index on id (one current version per id, so ids are
        // distinct here); each row's version is then checked against its own entry.
        await run(
          `UPDATE ${s}.facts SET superseded_at = $1
           WHERE id = ANY($2::bigint[]) AND superseded_at IS NULL
             AND version = ($3::int[])[array_position($2::bigint[], id)]`,
          [await tick(), versions.map((v) => v.id), versions.map((v) => v.version)],
        );
      },
      amendValidTo: async (id, version, validTo) => {
        await run(`UPDATE ${s}.facts SET valid_to = $1 WHERE id = $2 AND version = $3`, [validTo, id, version]);
      },
      remove: async (ids) =>
        num(
          (
            await run(
              `WITH gone AS (DELETE FROM ${s}.facts WHERE id = ANY($1::bigint[]) RETURNING 1) SELECT count(*)::int AS n FROM gone`,
              [[...ids]],
            )
          ).rows[0]?.n,
        ),
      logErasure: async (entry: ErasureRow) => {
        await run(`INSERT INTO ${s}.erasures (at, ids, versions, reason, actor) VALUES ($1, $2::jsonb, $3, $4, $5)`, [
          entry.at,
          JSON.stringify(entry.ids),
          entry.versions,
          entry.reason,
          entry.actor,
        ]);
      },
      setFunctional: async (predicate, functional) => {
        await run(
          `INSERT INTO ${s}.predicates (name, functional) VALUES ($1, $2)
           ON CONFLICT (name) DO UPDATE SET functional = excluded.functional`,
          [predicate, functional],
        );
      },
    };
  }
}
