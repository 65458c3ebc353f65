/**
 * PGlite (PostgreSQL compiled to WebAssembly, in-process) behind the `PgPool`
 * shape the PostgreSQL backend uses: a real PostgreSQL engine for tests on a
 * machine with no server. Test support only: not part of the built package.
 *
 * PGlite has one connection, so a "connection" here is a turn at it: a test's
 * concurrent reads and writes queue, as they would for a pool of size one.
 */
import { PGlite } from "@electric-sql/pglite";
import type { PgConnection, PgPool } from "../pg-backend.js";

/** An in-memory PGlite database as a pool of one connection. */
export async function createPglitePool(): Promise<PgPool> {
  const db = await PGlite.create();
  let tail: Promise<void> = Promise.resolve();
  const turn = async (): Promise<() => void> => {
    let release: () => void = () => {};
    const previous = tail;
    tail = new Promise<void>((resolve) => {
      release = resolve;
    });
    await previous;
    return release;
  };
  const query = async (text: string, params?: unknown[]) => {
    const result = await db.query<Record<string, unknown>>(text, params);
    return { rows: result.rows };
  };
  return {
    async connect(): Promise<PgConnection> {
      const release = await turn();
      let released = false;
      return {
        query,
        release: () => {
          if (!released) release();
          released = true;
        },
      };
    },
    async end() {
      await tail;
      await db.close();
    },
  };
}
