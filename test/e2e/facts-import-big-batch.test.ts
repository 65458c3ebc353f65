/**
 * `ocp-facts import --batch 150000`: one batch of 150,000 records, a real process and a
 * real file. Any batch size works (an array of rows was once appended with a spread
 * `push(...rows)`, which overflowed the call stack); so does a search asking for as many
 * facts (its best-placement maximum was a spread `Math.max(...)`).
 *
 * SQLite always; PostgreSQL too when OCP_PG_URL names a server (CI starts one).
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type OpenFactStoreOptions, openFactStore } from "ocp-plugin-facts";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { REPO, spawnNode } from "../test-support/child.js";

const FACTS_BIN = join(REPO, "plugins/facts/bin/ocp-facts.js");
const RECORDS = 150_000;
const dir = mkdtempSync(join(tmpdir(), "ocp-facts-big-batch-"));
const file = join(dir, "facts.jsonl");

const lines: string[] = [];
for (let id = 1; id <= RECORDS; id++) {
  lines.push(
    JSON.stringify({
      id,
      subject: `person-${id % 9973}`,
      predicate: `attribute-${id % 37}`,
      statement: `Person ${id % 9973} has attribute ${id % 37} with value ${id}.`,
      valid_from: "2020-01-01T00:00:00Z",
    }),
  );
}
writeFileSync(file, `${lines.join("\n")}\n`);

const pgUrl = process.env.OCP_PG_URL;
const pgSchema = `ocp_facts_big_${randomBytes(5).toString("hex")}`;
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  if (pgUrl) {
    const client = new pg.Client({ connectionString: pgUrl });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS ${pgSchema} CASCADE`);
    await client.end();
  }
});

const targets: { name: string; args: string[]; open: OpenFactStoreOptions }[] = [
  { name: "sqlite", args: ["--db", join(dir, "big.db")], open: { db: join(dir, "big.db"), create: false } },
];
if (pgUrl)
  targets.push({
    name: "postgresql",
    args: ["--pg", pgUrl, "--schema", pgSchema],
    open: { pg: pgUrl, schema: pgSchema, create: false },
  });

describe.each(targets)("ocp-facts import with one batch of 150,000 records ($name)", (target) => {
  it("imports every record in one batch, and a search may ask for all of them", async () => {
    const child = spawnNode([FACTS_BIN, "import", file, ...target.args, "--batch", String(RECORDS), "--json"]);
    const { code } = await child.exited;
    expect(code, child.stderr()).toBe(0);
    expect(JSON.parse(child.lines.join("\n"))).toEqual({
      records: RECORDS,
      batches: 1,
      inserted: RECORDS,
      skipped: 0,
      superseded: 0,
    });
    expect(child.stderr()).toContain(`batch 1 committed (lines 1-${RECORDS}: ${RECORDS} new, 0 already present)`);

    const store = await openFactStore(target.open);
    try {
      const ids = new Set<number>();
      for await (const fact of store.versions(20_000)) ids.add(fact.id);
      expect(ids.size).toBe(RECORDS);
      // Every fact matches "person": one level of the search brings all of them back.
      const hits = await store.search({ text: "person", validAt: "2021-01-01", limit: RECORDS });
      expect(hits).toHaveLength(RECORDS);
    } finally {
      await store.close();
    }
  }, 180_000);
});
