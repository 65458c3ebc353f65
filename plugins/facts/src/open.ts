/**
 * Opening a store: `{ db }` for a SQLite file, `{ pg }` for a PostgreSQL URL,
 * `{ pgPool }` for a pool you already have. Exactly one.
 */
import { escapeLine } from "ocp-provider";
import pg from "pg";
import type { Clock } from "./backend.js";
import { FACT_ERRORS, FactError } from "./errors.js";
import { openPgBackend, type PgPool } from "./pg-backend.js";
import { isLocalPgHost, pgEndpoint, pgLocation } from "./pg-url.js";
import { openSqliteBackend } from "./sqlite-backend.js";
import { FactStore } from "./store.js";

/** Where the store is and how to open it. */
export interface OpenFactStoreOptions {
  /** A SQLite file: the embedded default, nothing to start. */
  db?: string;
  /** A PostgreSQL URL (`postgres://user@host:5432/database`). */
  pg?: string;
  /** A PostgreSQL pool you manage (a `pg.Pool`, or PGlite behind the same shape); closed with the store. */
  pgPool?: PgPool;
  /** PostgreSQL schema holding the store; default `ocp_facts`. */
  schema?: string;
  /** Create the store when it does not exist; default true. Readers pass false, so a typo is an error, not an empty store. */
  create?: boolean;
  /** The store's name in `fact://<name>/<id>` URIs; default the file's base name or the database name. */
  name?: string;
  /** System-time source (tests pin it); default the wall clock — on PostgreSQL, the server's. */
  clock?: Clock;
  /** SQLite page cache in MiB; default 64. */
  cacheMb?: number;
  /** With `pgPool`: whether its server runs on this machine (PGlite does); default false, the cautious answer. */
  pgPoolLocal?: boolean;
  /** Where a PostgreSQL pool reports errors of idle connections; default stderr. */
  onPoolError?: (error: Error) => void;
}

/** Opens (or creates) a fact store. */
export async function openFactStore(options: OpenFactStoreOptions): Promise<FactStore> {
  const given = [options?.db, options?.pg, options?.pgPool].filter((value) => value !== undefined).length;
  if (given !== 1) {
    throw new FactError(
      FACT_ERRORS.CONFIG,
      "a fact store needs exactly one of db (a SQLite file), pg (a PostgreSQL URL) or pgPool",
    );
  }
  const create = options.create ?? true;
  if (options.db !== undefined) {
    if (typeof options.db !== "string" || options.db.trim() === "") {
      throw new FactError(FACT_ERRORS.CONFIG, "db must be a file path");
    }
    const backend = openSqliteBackend({ file: options.db, create, clock: options.clock, cacheMb: options.cacheMb });
    return new FactStore(backend, { name: options.name, clock: options.clock });
  }
  let pool: PgPool;
  let location = "PostgreSQL";
  let database = "postgres";
  let local = options.pgPoolLocal === true;
  if (options.pg !== undefined) {
    const config = { connectionString: options.pg, max: 4, connectionTimeoutMillis: 10_000 };
    // Judged on the pool's own options, as its driver resolves them: the host judged is the host connected to.
    const endpoint = pgEndpoint(config);
    location = pgLocation(endpoint);
    database = endpoint.database;
    local = isLocalPgHost(endpoint.host);
    const real = new pg.Pool(config);
    // An idle connection dropped by the server must not crash the process: the next query reconnects.
    real.on(
      "error",
      options.onPoolError ?? ((error) => process.stderr.write(`ocp-facts: PostgreSQL: ${escapeLine(error.message)}\n`)),
    );
    pool = real;
  } else {
    pool = options.pgPool as PgPool;
  }
  const schema = options.schema ?? "ocp_facts";
  try {
    const backend = await openPgBackend({
      pool,
      location,
      name: schema === "ocp_facts" ? database : `${database}.${schema}`,
      schema,
      create,
      clock: options.clock,
      local,
    });
    return new FactStore(backend, { name: options.name, clock: options.clock });
  } catch (error) {
    if (options.pg !== undefined) await pool.end().catch(() => {});
    if (error instanceof FactError) throw error;
    throw new FactError(
      FACT_ERRORS.NO_STORE,
      `cannot open the fact store at ${location}: ${(error as Error).message}`,
      {
        cause: error,
      },
    );
  }
}
