/**
 * PostgreSQL store layouts: a store made before accent folding (layout 1, its text
 * index over the plain text) is still read and written, without folding; a layout this
 * version does not know is refused by name. On PGlite, whatever OCP_PG_URL says: the
 * test rewrites a store's tables by hand.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FACT_ERRORS } from "./errors.js";
import { openFactStore } from "./open.js";
import type { PgPool } from "./pg-backend.js";
import { createPglitePool } from "./test-support/pglite-pool.js";

let engine: PgPool;
// Stores end their pool when they close; the engine outlives them, as in the backend suite.
const pool: PgPool = { connect: () => engine.connect(), end: async () => {} };
beforeAll(async () => {
  engine = await createPglitePool();
}, 120_000);
afterAll(async () => {
  await engine.end();
});

async function sql(text: string): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query(text);
  } finally {
    client.release();
  }
}

const open = (schema: string, create = true) => openFactStore({ pgPool: pool, pgPoolLocal: true, schema, create });

describe("PostgreSQL store layouts", () => {
  it("reads and writes a layout-1 store, whose text index does not fold accents", async () => {
    const made = await open("layout_one");
    await made.assert({ subject: "zoë", predicate: "works_at", statement: "Zoë works at Café Lumière" });
    await made.close();
    // What a layout-1 store holds: the same tables, the text indexed without folding.
    await sql(`ALTER TABLE layout_one.facts DROP COLUMN tsv`);
    await sql(
      `ALTER TABLE layout_one.facts ADD COLUMN tsv tsvector GENERATED ALWAYS AS (to_tsvector('english'::regconfig, subject || ' ' || predicate || ' ' || statement)) STORED`,
    );
    await sql(`CREATE INDEX facts_text ON layout_one.facts USING gin (tsv)`);
    await sql(`UPDATE layout_one.meta SET value = '1' WHERE key = 'schema'`);

    const store = await open("layout_one", false);
    const subjects = async (text: string) =>
      (await store.search({ text, validAt: new Date().toISOString() })).map((hit) => hit.fact.subject);
    expect(await subjects("Zoë café")).toEqual(["zoë"]);
    // Its queries are not folded either, so plain and accented words keep matching as before.
    expect(await subjects("zoe cafe")).toEqual([]);
    await store.assert({ subject: "léa", predicate: "works_at", statement: "Léa works at Café Lumière" });
    expect((await subjects("Lumière")).sort()).toEqual(["léa", "zoë"]);
    await store.close();
  });

  it("refuses a layout it does not know, naming the ones it reads", async () => {
    const made = await open("layout_future");
    await made.close();
    await sql(`UPDATE layout_future.meta SET value = '9' WHERE key = 'schema'`);
    await expect(open("layout_future", false)).rejects.toMatchObject({
      code: FACT_ERRORS.NO_STORE,
      message: expect.stringMatching(/store layout 9, but this ocp-facts reads layouts 1 and 2/),
    });
  });
});
