/**
 * `ocp-facts import` of a large file while `ocp-facts assert` and `correct` processes
 * write to the same store: real child processes, one real store. The import is killed
 * part-way and run again. The import claims its file's ids before its first batch, so
 * the asserted facts get ids above the file's and the re-run finishes, every record
 * under its file id, the other writers' facts beside them. (An assertion once took the
 * id of a later batch, and the import stopped there for good.)
 *
 * SQLite always; PostgreSQL too when OCP_PG_URL names a server (CI starts one).
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Fact, type OpenFactStoreOptions, openFactStore } from "ocp-plugin-facts";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { type Child, REPO, spawnNode } from "../test-support/child.js";

const FACTS_BIN = join(REPO, "plugins/facts/bin/ocp-facts.js");
const RECORDS = 60_000;
const BATCH = 250;
/** Writers asserting side by side while the import runs. */
const WRITERS = 2;
const dir = mkdtempSync(join(tmpdir(), "ocp-facts-concurrent-"));
const file = join(dir, "facts.jsonl");

const statementOf = (id: number) => `Person ${id % 997} has attribute ${id % 31} with value ${id}.`;
const lines: string[] = [];
for (let id = 1; id <= RECORDS; id++) {
  lines.push(
    JSON.stringify({
      id,
      subject: `person-${id % 997}`,
      predicate: `attribute-${id % 31}`,
      statement: statementOf(id),
      valid_from: "2020-01-01T00:00:00Z",
    }),
  );
}
writeFileSync(file, `${lines.join("\n")}\n`);

const pgUrl = process.env.OCP_PG_URL;
const pgSchema = `ocp_facts_concurrent_${randomBytes(5).toString("hex")}`;
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
  { name: "sqlite", args: ["--db", join(dir, "shared.db")], open: { db: join(dir, "shared.db"), create: false } },
];
if (pgUrl)
  targets.push({
    name: "postgresql",
    args: ["--pg", pgUrl, "--schema", pgSchema],
    open: { pg: pgUrl, schema: pgSchema, create: false },
  });

/** Resolves once `pattern` appears on the child's stderr; rejects if it exits first. */
async function stderrShows(child: Child, pattern: RegExp, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!pattern.test(child.stderr())) {
    if (child.process.exitCode !== null) throw new Error(`exited before ${pattern}:\n${child.stderr()}`);
    if (Date.now() > deadline) throw new Error(`no ${pattern} within ${ms} ms:\n${child.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Runs one `ocp-facts` command to its end; its `--json` output. */
async function facts(args: string[]): Promise<{ fact: Fact }> {
  const child = spawnNode([FACTS_BIN, ...args, "--json"]);
  const { code } = await child.exited;
  expect(code, child.stderr()).toBe(0);
  return JSON.parse(child.lines.join("\n"));
}

describe.each(targets)("ocp-facts import while other ocp-facts processes write ($name)", (target) => {
  it("finishes after a kill, every record under its file id, the other writers' facts beside them", async () => {
    const importArgs = [FACTS_BIN, "import", file, ...target.args, "--batch", String(BATCH), "--json"];
    let importer = spawnNode(importArgs);
    const running = () => importer.process.exitCode === null && importer.process.signalCode === null;
    await stderrShows(importer, /batch 1 committed/, 60_000);

    // Writers, each a real process at a time: they assert new facts, and correct facts of the
    // first batch (writer w corrects ids w, w + WRITERS, …), for as long as the test lets them.
    const asserted = new Map<number, string>();
    const corrected = new Map<number, string>();
    let stop = false;
    let whileImporting = 0;
    const writer = async (w: number) => {
      for (let n = 0; !stop; n++) {
        const during = running();
        const id = w + WRITERS * (n >> 1); // a fact of the first batch, committed before any writer starts
        if (n % 2 === 1 && id <= BATCH) {
          const statement = `${statementOf(id)} (corrected by writer ${w})`;
          await facts(["correct", ...target.args, "--id", String(id), "--statement", statement]);
          corrected.set(id, statement);
        } else {
          const statement = `writer ${w} asserted ${n} while the import ran`;
          const { fact } = await facts([
            "assert",
            ...target.args,
            "--subject",
            `writer-${w}`,
            "--predicate",
            "note",
            "--statement",
            statement,
          ]);
          asserted.set(fact.id, statement);
        }
        if (during && running()) whileImporting++;
      }
    };
    const writers = Promise.all(Array.from({ length: WRITERS }, (_, i) => writer(i + 1)));
    let failed: unknown;
    writers.catch((error: unknown) => {
      failed = error;
      stop = true;
    });

    // Killed once some writes have landed while it ran, then run again while the writers go on.
    const deadline = Date.now() + 120_000;
    while (whileImporting < WRITERS) {
      if (failed !== undefined) throw failed;
      if (!running()) {
        const { code } = await importer.exited;
        throw new Error(
          code === 0
            ? `the import ended before the writers wrote; make the file bigger:\n${importer.stderr()}`
            : `the import failed (exit ${code}) while other processes wrote:\n${importer.stderr()}`,
        );
      }
      if (Date.now() > deadline) throw new Error(`no writes while the import ran, in 120 s:\n${importer.stderr()}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    importer.process.kill("SIGKILL");
    expect((await importer.exited).signal).toBe("SIGKILL");
    const beforeRerun = whileImporting;
    importer = spawnNode(importArgs);
    const { code } = await importer.exited;
    stop = true;
    await writers;
    expect(code, importer.stderr()).toBe(0);
    // Had the imports ended before the writers came back, this test would have shown nothing.
    expect(whileImporting - beforeRerun, "writes that committed while the re-run ran").toBeGreaterThanOrEqual(1);
    const summary = JSON.parse(importer.lines.join("\n"));
    expect(summary.records).toBe(RECORDS);
    expect(summary.inserted + summary.skipped).toBe(RECORDS);
    expect(summary.skipped).toBeGreaterThanOrEqual(BATCH); // the first run committed batches before its kill
    expect(summary.inserted).toBeGreaterThan(0); // and was killed before it was done

    const store = await openFactStore(target.open);
    const stored = new Map<string, Fact>();
    try {
      for await (const fact of store.versions(20_000)) stored.set(`${fact.id}@${fact.version}`, fact);
    } finally {
      await store.close();
    }
    expect(stored.size).toBe(RECORDS + asserted.size + corrected.size);
    for (let id = 1; id <= RECORDS; id++) {
      const statement = stored.get(`${id}@1`)?.statement;
      if (statement !== statementOf(id)) expect(statement, `fact ${id}`).toBe(statementOf(id));
    }
    for (const [id, statement] of corrected) expect(stored.get(`${id}@2`)?.statement).toBe(statement);
    for (const [id, statement] of asserted) {
      expect(id).toBeGreaterThan(RECORDS);
      expect(stored.get(`${id}@1`)?.statement).toBe(statement);
    }

    // Running the same import again changes nothing and clashes with nothing.
    const again = spawnNode(importArgs);
    expect((await again.exited).code, again.stderr()).toBe(0);
    expect(JSON.parse(again.lines.join("\n"))).toMatchObject({ inserted: 0, skipped: RECORDS });
  }, 300_000);
});
