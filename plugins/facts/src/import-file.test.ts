/**
 * `importJsonl` against other writers, on SQLite and PostgreSQL (a real server when
 * OCP_PG_URL is set, PGlite otherwise): the import claims its file's ids before its
 * first batch, so a fact asserted while it runs never takes one; and a file id
 * already stored with other content refuses the whole import before it writes.
 * (The same with real processes: test/e2e/facts-import-concurrent.test.ts.)
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FACT_ERRORS } from "./errors.js";
import { importJsonl } from "./import-file.js";
import type { Fact } from "./model.js";
import type { FactStore } from "./store.js";
import { type BackendTarget, postgresTarget, sqliteTarget } from "./test-support/targets.js";

const dir = mkdtempSync(join(tmpdir(), "ocp-facts-import-file-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A JSONL file of new facts with ids `from`…`to`. */
function factsFile(name: string, from: number, to: number): string {
  const lines: string[] = [];
  for (let id = from; id <= to; id++) {
    lines.push(JSON.stringify({ id, subject: `s${id}`, predicate: "p", statement: `fact ${id} from the file` }));
  }
  const file = join(dir, name);
  writeFileSync(file, `${lines.join("\n")}\n`);
  return file;
}

async function versions(store: FactStore): Promise<Fact[]> {
  const all: Fact[] = [];
  for await (const fact of store.versions()) all.push(fact);
  return all;
}

const TARGETS: [string, () => Promise<BackendTarget>][] = [
  ["sqlite", async () => sqliteTarget()],
  ["postgresql", postgresTarget],
];

describe.each(TARGETS)("importJsonl with other writers on %s", (_label, makeTarget) => {
  let target: BackendTarget;
  beforeAll(async () => {
    target = await makeTarget();
  }, 120_000);
  afterAll(async () => {
    await target?.dispose();
  });

  it("claims the file's ids first: facts asserted between batches get ids above them", async () => {
    const file = factsFile("claim.jsonl", 1, 500);
    const store = await target.open();
    const other = await target.reopen();
    const asserted: number[] = [];
    try {
      const summary = await importJsonl(store, file, {
        batchSize: 100,
        // Another connection writes after every batch, as a service would while an import runs.
        onBatch: async () => {
          const result = await other.assert({ subject: "svc", predicate: "p", statement: "asserted meanwhile" });
          asserted.push(result.fact.id);
        },
      });
      expect(summary).toMatchObject({ records: 500, batches: 5, inserted: 500, skipped: 0 });
      expect(asserted).toEqual([501, 502, 503, 504, 505]);
      const all = await versions(store);
      expect(all).toHaveLength(505);
      const byId = new Map(all.map((fact) => [fact.id, fact]));
      for (let id = 1; id <= 500; id++) expect(byId.get(id)?.statement, `fact ${id}`).toBe(`fact ${id} from the file`);
      // A re-run is harmless: everything is skipped, nothing clashes.
      expect(await importJsonl(store, file, { batchSize: 100 })).toMatchObject({ inserted: 0, skipped: 500 });
    } finally {
      await other.close();
      await store.close();
    }
  });

  it("refuses, before a batch, a file whose id was taken while the file was being checked", async () => {
    const file = factsFile("window.jsonl", 1, 300);
    const store = await target.open();
    const other = await target.reopen();
    try {
      // Another writer commits between the import's look at the store and its claim (a real
      // race window, opened wide here): the fact it asserts takes id 1, which the file uses.
      const look = store.firstFreeId.bind(store);
      store.firstFreeId = async () => {
        const free = await look();
        await other.assert({ subject: "svc", predicate: "p", statement: "asserted while checking" });
        return free;
      };
      const error = await importJsonl(store, file, { batchSize: 100 }).catch((caught: unknown) => caught);
      expect(error).toMatchObject({ code: FACT_ERRORS.CONFLICT });
      expect((error as Error).message).toMatch(/line 1: fact 1 version 1 is already stored as 'svc · p/);
      expect((await versions(store)).map((fact) => fact.id)).toEqual([1]);
    } finally {
      await other.close();
      await store.close();
    }
  });

  it("refuses a file whose ids are stored with other content before it writes a batch", async () => {
    const file = factsFile("clash.jsonl", 1, 500);
    const elsewhere = join(dir, "elsewhere.jsonl");
    writeFileSync(elsewhere, `${JSON.stringify({ id: 450, subject: "someone", predicate: "p", statement: "else" })}\n`);
    const store = await target.open();
    try {
      // Fact 450 is already here, from another file: with batches of 100 it is in the fifth.
      await importJsonl(store, elsewhere);
      const error = await importJsonl(store, file, { batchSize: 100 }).catch((caught: unknown) => caught);
      expect(error).toMatchObject({ code: FACT_ERRORS.CONFLICT });
      expect((error as Error).message).toMatch(/: 1 record clashing with stored facts; nothing was imported/);
      expect((error as Error).message).toMatch(/line 450: fact 450 version 1 is already stored as 'someone · p: else'/);
      // Nothing of the file went in, not even the four batches before the clash: no half-done import.
      expect((await versions(store)).map((fact) => fact.id)).toEqual([450]);
    } finally {
      await store.close();
    }
    // The same id with the same content is what a re-run finds: skipped, not a clash.
    const same = await target.open();
    try {
      await importJsonl(same, factsFile("same.jsonl", 450, 450));
      expect(await importJsonl(same, file, { batchSize: 100 })).toMatchObject({ inserted: 499, skipped: 1 });
      expect(await versions(same)).toHaveLength(500);
    } finally {
      await same.close();
    }
  });
});
