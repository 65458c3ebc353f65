/**
 * `ocp-facts import` killed with SIGKILL half-way through a large JSONL file: a
 * real child process, a real store. Afterwards every batch is wholly present or
 * wholly absent, no batch the importer reported committed is lost, and running
 * the same import again completes the job without duplicates.
 *
 * SQLite always; PostgreSQL too when OCP_PG_URL names a server (CI starts one).
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type FactStore, type OpenFactStoreOptions, openFactStore } from "ocp-plugin-facts";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { type Child, REPO, spawnNode } from "../test-support/child.js";

const FACTS_BIN = join(REPO, "plugins/facts/bin/ocp-facts.js");
const RECORDS = 200_000;
const BATCH = 500;
const dir = mkdtempSync(join(tmpdir(), "ocp-facts-kill-"));
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
      method: "bulk-load",
    }),
  );
}
writeFileSync(file, `${lines.join("\n")}\n`);

const pgUrl = process.env.OCP_PG_URL;
const pgSchema = `ocp_facts_kill_${randomBytes(5).toString("hex")}`;
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  if (pgUrl) {
    const client = new pg.Client({ connectionString: pgUrl });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS ${pgSchema} CASCADE`);
    await client.end();
  }
});

interface Target {
  name: string;
  args: string[];
  open: OpenFactStoreOptions;
}

const targets: Target[] = [
  { name: "sqlite", args: ["--db", join(dir, "kill.db")], open: { db: join(dir, "kill.db"), create: false } },
];
if (pgUrl)
  targets.push({
    name: "postgresql",
    args: ["--pg", pgUrl, "--schema", pgSchema],
    open: { pg: pgUrl, schema: pgSchema, create: false },
  });

async function exited(child: Child, ms: number) {
  const timer = setTimeout(() => child.process.kill("SIGKILL"), ms);
  const result = await child.exited;
  clearTimeout(timer);
  return result;
}

/** How many records of each batch of the file the store holds, and how many versions in all. */
async function census(store: FactStore) {
  const perBatch = new Map<number, number>();
  const ids = new Set<number>();
  let versions = 0;
  for await (const fact of store.versions(20_000)) {
    versions++;
    ids.add(fact.id);
    const batch = Math.floor((fact.id - 1) / BATCH);
    perBatch.set(batch, (perBatch.get(batch) ?? 0) + 1);
  }
  return { perBatch, ids, versions };
}

describe.each(targets)("ocp-facts import killed with SIGKILL ($name)", (target) => {
  it("keeps whole batches only, loses no committed batch, and a re-run completes without duplicates", async () => {
    const child = spawnNode([FACTS_BIN, "import", file, ...target.args, "--batch", String(BATCH)]);
    const committed = () => [...child.stderr().matchAll(/batch (\d+) committed/g)].map((match) => Number(match[1]));
    // Note when each batch is reported, then kill half a batch-time after one: mid-batch,
    // where an import that was not atomic per batch would leave half a batch behind.
    const seen: number[] = [];
    const deadline = Date.now() + 60_000;
    while (seen.length < 6) {
      if (Date.now() > deadline) throw new Error(`no 6 committed batches in 60 s; stderr:\n${child.stderr()}`);
      if (child.process.exitCode !== null)
        throw new Error(`import ended before it could be killed:\n${child.stderr()}`);
      const count = committed().length;
      while (seen.length < count) seen.push(performance.now());
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    const interval = ((seen.at(-1) as number) - (seen[2] as number)) / (seen.length - 3);
    await new Promise((resolve) => setTimeout(resolve, Math.max(1, interval / 2)));
    child.process.kill("SIGKILL");
    expect((await child.exited).signal).toBe("SIGKILL");
    const reported = Math.max(...committed());

    const store = await openFactStore(target.open);
    const after = await census(store);
    await store.close();
    const totalBatches = RECORDS / BATCH;
    expect(after.perBatch.size).toBeLessThan(totalBatches); // it really was killed mid-import
    for (const [batch, count] of after.perBatch) expect(count, `batch ${batch + 1}`).toBe(BATCH);
    for (let batch = 0; batch < reported; batch++) expect(after.perBatch.get(batch), `batch ${batch + 1}`).toBe(BATCH);
    expect(after.versions).toBe(after.ids.size);

    const rerun = spawnNode([FACTS_BIN, "import", file, ...target.args, "--batch", String(BATCH), "--json"]);
    const { code } = await exited(rerun, 120_000);
    expect(code, rerun.stderr()).toBe(0);
    const summary = JSON.parse(rerun.lines.join("\n"));
    expect(summary).toMatchObject({ records: RECORDS, skipped: after.versions, inserted: RECORDS - after.versions });

    const done = await openFactStore(target.open);
    const final = await census(done);
    await done.close();
    expect(final.versions).toBe(RECORDS);
    expect(final.ids.size).toBe(RECORDS);
  }, 180_000);
});
