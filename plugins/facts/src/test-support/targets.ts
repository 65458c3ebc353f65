/**
 * The backends the one backend test suite runs against: SQLite always;
 * PostgreSQL on the server named by `OCP_PG_URL` when it is set (CI starts one),
 * else on PGlite in-process. Never skipped: if neither PostgreSQL is available,
 * opening the target fails with a message saying what to set up.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { type OpenFactStoreOptions, openFactStore } from "../open.js";
import type { PgPool } from "../pg-backend.js";
import type { FactStore } from "../store.js";

/** Store options a test may set. */
export type TargetOptions = Omit<OpenFactStoreOptions, "db" | "pg" | "pgPool" | "schema">;

/** One backend to run the suite on. */
export interface BackendTarget {
  readonly name: string;
  /** A new, empty store on this backend. */
  open(options?: TargetOptions): Promise<FactStore>;
  /** Opens the store last made by {@link open} again, through a second connection. */
  reopen(options?: TargetOptions): Promise<FactStore>;
  /** Removes everything the target created. */
  dispose(): Promise<void>;
}

/** SQLite files in a fresh temporary directory. */
export function sqliteTarget(): BackendTarget {
  const dir = mkdtempSync(join(tmpdir(), "ocp-facts-test-"));
  let count = 0;
  return {
    name: "sqlite",
    open: (options = {}) => openFactStore({ ...options, db: join(dir, `store-${++count}.db`) }),
    reopen: (options = {}) => openFactStore({ ...options, db: join(dir, `store-${count}.db`), create: false }),
    dispose: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** PostgreSQL: the `OCP_PG_URL` server, else PGlite. Each store gets a schema of its own. */
export async function postgresTarget(): Promise<BackendTarget> {
  const url = process.env.OCP_PG_URL;
  const schemas: string[] = [];
  const newSchema = () => {
    const schema = `ocp_facts_test_${randomBytes(6).toString("hex")}`;
    schemas.push(schema);
    return schema;
  };
  if (url !== undefined && url !== "") {
    return {
      name: "postgresql (server at OCP_PG_URL)",
      open: (options = {}) => openFactStore({ ...options, pg: url, schema: newSchema() }),
      reopen: (options = {}) => openFactStore({ ...options, pg: url, schema: schemas.at(-1), create: false }),
      dispose: async () => {
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        for (const schema of schemas) await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
        await client.end();
      },
    };
  }
  let createPglitePool: () => Promise<PgPool>;
  try {
    ({ createPglitePool } = await import("./pglite-pool.js"));
  } catch (error) {
    throw new Error(
      "the PostgreSQL backend suite cannot run: OCP_PG_URL is not set and PGlite (@electric-sql/pglite) " +
        `does not load (${(error as Error).message}). Set OCP_PG_URL=postgres://… or install the root devDependencies.`,
    );
  }
  // One PGlite engine for the whole file (it takes seconds to start); stores share it through schemas.
  const shared = await createPglitePool();
  const borrowed: PgPool = { connect: () => shared.connect(), end: async () => {} };
  return {
    name: "postgresql (PGlite in-process)",
    open: (options = {}) => openFactStore({ ...options, pgPool: borrowed, pgPoolLocal: true, schema: newSchema() }),
    reopen: (options = {}) =>
      openFactStore({ ...options, pgPool: borrowed, pgPoolLocal: true, schema: schemas.at(-1), create: false }),
    dispose: () => shared.end(),
  };
}
