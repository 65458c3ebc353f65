/**
 * The `ocp-facts` command as a person or a script uses it: real processes, a real
 * store. Exit codes 0/1/2, errors on stderr and nothing on stdout, bad input that
 * changes nothing, JSON output, export → import round trips (into PostgreSQL too
 * when OCP_PG_URL names a server).
 */
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { REPO, spawnNode } from "../test-support/child.js";
import { postEnvelope } from "../test-support/envelopes.js";
import { listeningUrl } from "../test-support/listening.js";

const FACTS_BIN = join(REPO, "plugins/facts/bin/ocp-facts.js");
const dir = mkdtempSync(join(tmpdir(), "ocp-facts-cli-"));
const db = join(dir, "cli.db");
const pgUrl = process.env.OCP_PG_URL;
const pgSchema = `ocp_facts_cli_${randomBytes(5).toString("hex")}`;

afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  if (pgUrl) {
    const client = new pg.Client({ connectionString: pgUrl });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS ${pgSchema} CASCADE`);
    await client.end();
  }
});

/** Runs `ocp-facts …` to completion. */
async function run(...args: string[]) {
  const child = spawnNode([FACTS_BIN, ...args]);
  const { code } = await child.exited;
  return { code, stdout: child.lines.join("\n"), stderr: child.stderr() };
}

const exported = async (...store: string[]) => {
  const result = await run("export", ...store);
  expect(result.code, result.stderr).toBe(0);
  return result.stdout;
};

describe("ocp-facts", () => {
  it("writes, reads and explains a timeline; --json output is the API's", async () => {
    expect((await run("functional", "--db", db, "works_at")).stdout).toBe("works_at");
    const first = await run(
      "assert",
      "--db",
      db,
      "--subject",
      "alice",
      "--predicate",
      "works_at",
      "--statement",
      "Alice works at Acme",
      "--valid-from",
      "2020-03-01",
      "--author",
      "hr-bot",
      "--json",
    );
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ fact: { id: 1, version: 1, validFrom: "2020-03-01T00:00:00Z" } });
    const second = await run(
      "assert",
      "--db",
      db,
      "--subject",
      "alice",
      "--predicate",
      "works_at",
      "--statement",
      "Alice works at Globex",
      "--valid-from",
      "2024-02-15",
    );
    expect(second.stdout).toMatch(/^asserted fact 2\n/);
    expect(second.stdout).toContain("superseded fact 1: now valid 2020-03-01 → 2024-02-15");
    const past = await run("query", "--db", db, "where does alice work", "--as-of", "2021-01-01", "--json");
    expect(JSON.parse(past.stdout).map((hit: { statement: string }) => hit.statement)).toEqual(["Alice works at Acme"]);
    const history = await run("history", "--db", db, "--id", "1", "--json");
    expect(JSON.parse(history.stdout).map((fact: { op: string }) => fact.op)).toEqual(["assert", "supersede"]);
    const retracted = await run("retract", "--db", db, "--id", "2", "--at", "2025-01-01", "--reason", "left");
    expect(retracted.stdout).toContain("valid 2024-02-15 → 2025-01-01");
    const listed = await run("query", "--db", db, "--subject", "alice", "--as-of", "2025-06-01");
    expect(listed.stdout).toBe("no facts hold then");
  });

  it("exits 2 on usage errors, 1 on refused input, with the reason on stderr and nothing changed", async () => {
    const before = await exported("--db", db);
    const cases: [string[], number, RegExp][] = [
      [[], 2, /Usage|ocp-facts —/],
      [["bogus"], 2, /unknown command 'bogus'/],
      [["assert", "--subject", "a", "--predicate", "p", "--statement", "s"], 2, /which store\?/],
      [["assert", "--db", db, "--subject", "a"], 2, /--predicate is required/],
      [["assert", "--db", db, "--subjct", "a"], 2, /subjct/],
      [["retract", "--db", db, "--id", "one"], 2, /--id must be a whole number/],
      [["history", "--db", db], 2, /exactly one of --id or --subject/],
      [["correct", "--db", db, "--id", "1", "--valid-to", "2020-01-01", "--open-ended"], 2, /not both/],
      [
        ["assert", "--db", db, "--subject", "a", "--predicate", "p", "--statement", "s", "--valid-from", "2024-02-30"],
        1,
        /valid_from: '2024-02-30'.*no day 30/,
      ],
      [
        [
          "assert",
          "--db",
          db,
          "--subject",
          "a",
          "--predicate",
          "p",
          "--statement",
          "s",
          "--valid-from",
          "2024-01-01",
          "--valid-to",
          "2023-01-01",
        ],
        1,
        /valid_to must be after valid_from/,
      ],
      [["correct", "--db", db, "--id", "42", "--statement", "x"], 1, /no fact 42.*OCP_FACTS_UNKNOWN_ID/],
      [["retract", "--db", db, "--id", "2"], 1, /already ends at 2025-01-01/],
      [["erase", "--db", db, "--id", "1"], 2, /--reason is required/],
      [["query", "--db", join(dir, "typo.db"), "alice"], 1, /no fact store at .*typo\.db/],
    ];
    for (const [args, code, message] of cases) {
      const result = await run(...args);
      expect(result.code, `${args.join(" ")}\n${result.stderr}`).toBe(code);
      expect(result.stderr).toMatch(message);
      if (args.length > 0) expect(result.stdout).toBe("");
    }
    expect(await exported("--db", db)).toBe(before);
    expect(existsSync(join(dir, "typo.db"))).toBe(false); // a reader never creates a store
  });

  it("serves over HTTP with the store option before `serve`, and keeps serving until told to stop", async () => {
    const store = join(dir, "served.db");
    expect((await run("functional", "--db", store, "works_at")).code).toBe(0);
    const child = spawnNode([
      FACTS_BIN,
      "--db",
      store,
      "serve",
      "--http",
      "127.0.0.1:0",
      "--allow-origin",
      "https://app.example",
    ]);
    try {
      const url = await listeningUrl(child, 20_000);
      // The bin once exited 0 right after "listening on" when serve was not the first word.
      await new Promise((resolve) => setTimeout(resolve, 300));
      const handshake = { type: "handshake", protocol_version: "ocp/1.0-draft" };
      const ack = await postEnvelope(url, handshake, { origin: "https://app.example" });
      expect(ack).toMatchObject({ status: 200, message: { type: "handshake_ack" } });
      // --allow-origin, the runner's on every provider bin, names the only other origin served.
      const evil = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", origin: "https://evil.example" },
        body: JSON.stringify(handshake),
      });
      expect(evil.status).toBe(403);
    } finally {
      child.process.kill("SIGTERM");
    }
    expect((await child.exited).code).toBe(0);
  });

  it("refuses a file with bad lines before importing anything, naming each line", async () => {
    const before = await exported("--db", db);
    const file = join(dir, "bad.jsonl");
    writeFileSync(
      file,
      [
        JSON.stringify({ id: 100, subject: "x", predicate: "p", statement: "fine" }),
        "{not json",
        JSON.stringify({ subject: "x", predicate: "p", statement: "no id" }),
        JSON.stringify({
          id: 101,
          subject: "x",
          predicate: "p",
          statement: "s",
          valid_from: "2024-01-01",
          valid_to: "2023-01-01",
        }),
        JSON.stringify({ id: 100, subject: "x", predicate: "p", statement: "again" }),
        JSON.stringify({ id: 102, subject: "x", predicate: "p", statement: "s", valid_form: "2024-01-01" }),
      ].join("\n"),
    );
    const result = await run("import", file, "--db", db);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("5 bad lines; nothing was imported");
    expect(result.stderr).toMatch(/line 2: not JSON/);
    expect(result.stderr).toMatch(/line 3: id is required/);
    expect(result.stderr).toMatch(/line 4: valid_to must be after valid_from/);
    expect(result.stderr).toMatch(/line 5: fact 100 version 1 is also on line 1/);
    expect(result.stderr).toMatch(/line 6: unknown field\(s\): valid_form/);
    expect(await exported("--db", db)).toBe(before);
  });

  it("erases for real and logs it; export → import restores a store exactly, and again is a no-op", async () => {
    await run("assert", "--db", db, "--subject", "mallory", "--predicate", "phone", "--statement", "+33 1 23 45 67 89");
    const erased = await run("erase", "--db", db, "--subject", "mallory", "--reason", "GDPR request", "--by", "dpo");
    expect(erased.code, erased.stderr).toBe(0);
    expect(erased.stdout).toMatch(/erased fact 3 \(1 version\) by dpo: GDPR request/);
    expect((await run("erasures", "--db", db)).stdout).toContain("GDPR request");
    expect(await exported("--db", db)).not.toContain("mallory");
    expect(readFileSync(db).includes("+33 1 23 45 67 89")).toBe(false); // secure delete: not even in free pages

    const out = join(dir, "export.jsonl");
    expect((await run("export", "--db", db, "--out", out)).code).toBe(0);
    const copy = join(dir, "copy.db");
    const first = await run("import", out, "--db", copy, "--json");
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ inserted: 4, skipped: 0 });
    expect(await exported("--db", copy)).toBe(readFileSync(out, "utf8").trimEnd());
    expect(JSON.parse((await run("import", out, "--db", copy, "--json")).stdout)).toMatchObject({
      inserted: 0,
      skipped: 4,
    });
  });

  it.skipIf(!pgUrl)("moves a store from SQLite to PostgreSQL with export and import (OCP_PG_URL)", async () => {
    const out = join(dir, "to-pg.jsonl");
    expect((await run("export", "--db", db, "--out", out)).code).toBe(0);
    const store = ["--pg", pgUrl as string, "--schema", pgSchema];
    const imported = await run("import", out, ...store);
    expect(imported.code, imported.stderr).toBe(0);
    expect(await exported(...store)).toBe(readFileSync(out, "utf8").trimEnd());
    const past = await run("query", ...store, "where does alice work", "--as-of", "2021-01-01", "--json");
    expect(JSON.parse(past.stdout).map((hit: { statement: string }) => hit.statement)).toEqual(["Alice works at Acme"]);
  });
});
