/**
 * `ocp-facts` given what a careless or hostile source hands it, as real processes:
 * a PostgreSQL URL whose host is not the one it seems, ids at the edge of a double,
 * a line of 600 MB streamed through a pipe, times that try to forge log lines, a link
 * planted where the export writes aside, and a SQLite file that is not a store.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { once } from "node:events";
import {
  createWriteStream,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { REPO, spawnNode, trackChildren } from "../test-support/child.js";
import { handshake, nextEnvelope, postEnvelope } from "../test-support/envelopes.js";
import { listeningUrl } from "../test-support/listening.js";

const FACTS_BIN = join(REPO, "plugins/facts/bin/ocp-facts.js");
const dir = mkdtempSync(join(tmpdir(), "ocp-facts-hostile-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const children = trackChildren();
afterEach(children.killAll);

/** Runs `ocp-facts …` to completion. */
async function run(...args: string[]) {
  const child = spawnNode([FACTS_BIN, ...args]);
  const { code } = await child.exited;
  return { code, stdout: child.lines.join("\n"), stderr: child.stderr() };
}

const exported = async (db: string) => {
  const result = await run("export", "--db", db);
  expect(result.code, result.stderr).toBe(0);
  return result.stdout;
};

const sha256 = (file: string) => createHash("sha256").update(readFileSync(file)).digest("hex");

describe("ocp-facts serve --mcp --pg: consent is asked for the host pg will connect to", () => {
  it.each([
    ["an empty ?host=, which pg ignores", "postgres://u@db.invalid/facts?host="],
    ["a later ?host=, which pg keeps", "postgres://u@localhost/facts?host=localhost&host=db.invalid"],
  ])("refuses %s without --allow-egress, before contacting it", async (_, url) => {
    const result = await run("serve", "--mcp", "--pg", url);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(/the store at postgresql:\/\/db\.invalid:5432\/facts is not on this machine/);
    expect(result.stderr).toMatch(/--allow-egress/);
    expect(result.stderr).not.toMatch(/ENOTFOUND|cannot open/); // refused before any connection
  });
});

describe("ocp-facts ids at the edge of a double", () => {
  it("refuses an id that leaves no safe next id, and the store keeps assigning ids", async () => {
    const db = join(dir, "ids.db");
    const file = join(dir, "ids.jsonl");
    writeFileSync(file, `${JSON.stringify({ id: 2 ** 53 - 1, subject: "s", predicate: "p", statement: "last" })}\n`);
    const refused = await run("import", "--db", db, file);
    expect(refused.code, refused.stderr).toBe(1);
    expect(refused.stderr).toMatch(/line 1: id 9007199254740991 is above 9007199254740990, .* \(OCP_FACTS_ID_RANGE\)/);
    for (const expected of [1, 2]) {
      const asserted = await run(
        "assert",
        "--db",
        db,
        "--subject",
        "s",
        "--predicate",
        "p",
        "--statement",
        "x",
        "--json",
      );
      expect(asserted.code, asserted.stderr).toBe(0);
      expect(JSON.parse(asserted.stdout).fact.id).toBe(expected);
    }
    const history = await run("history", "--db", db, "--id", String(2 ** 53 - 1));
    expect(history.code).toBe(1);
    expect(history.stderr).toMatch(/OCP_FACTS_ID_RANGE/);
  });
});

describe("ocp-facts import of a line far too long", () => {
  it("streams a 600 MB line through a pipe without keeping it: one error naming the line, no store left", async () => {
    const fifo = join(dir, "huge.jsonl");
    execFileSync("mkfifo", [fifo]);
    const db = join(dir, "never-made.db");
    const child = spawnNode([FACTS_BIN, "import", "--db", db, fifo]);
    // Written as the child reads it: nothing of this size ever lands on disk.
    const writer = createWriteStream(fifo);
    writer.on("error", () => {}); // a reader that dies early closes the pipe
    const feed = (async () => {
      writer.write(`${JSON.stringify({ id: 1, subject: "a", predicate: "p", statement: "fine" })}\n`);
      const mebibyte = Buffer.alloc(1 << 20, "x");
      for (let i = 0; i < 600 && !writer.destroyed; i++) if (!writer.write(mebibyte)) await once(writer, "drain");
      writer.end(`\n${JSON.stringify({ id: 2, subject: "b", predicate: "p", statement: "fine too" })}\n`);
    })().catch(() => {});
    const { code } = await child.exited;
    await feed;
    const stderr = child.stderr();
    expect(code, stderr).toBe(1);
    expect(stderr).toBe(
      `ocp-facts: ${fifo}: 1 bad line; nothing was imported\n` +
        "  line 2: 629,145,600 characters long, over the 1,048,576 an import reads (no fact record is that long) (OCP_FACTS_BAD_INPUT)\n",
    );
    expect(child.lines).toEqual([]);
    expect(readdirSync(dir).filter((name) => name.startsWith("never-made"))).toEqual([]);
  }, 120_000);

  it("refuses it against an existing store, which loses nothing", async () => {
    const db = join(dir, "kept.db");
    expect((await run("assert", "--db", db, "--subject", "a", "--predicate", "p", "--statement", "kept")).code).toBe(0);
    const before = await exported(db);
    const file = join(dir, "long.jsonl");
    const line = JSON.stringify({ id: 5, subject: "b", predicate: "p", statement: "y".repeat(2 << 20) });
    writeFileSync(file, `${line}\n`);
    const result = await run("import", "--db", db, file);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `line 1: ${line.length.toLocaleString("en-US")} characters long, over the 1,048,576 an import reads`,
    );
    expect(await exported(db)).toBe(before);
  });
});

/** A time that tries to clear the screen and forge a log line. */
const FORGED = "2024-01-01\u001b[2J\n[facts] error: forged line\u202e";

describe("ocp-facts serve given a bad as_of or as_known_at", () => {
  const query = (fields: Record<string, string>) => ({
    type: "query",
    query: { goal: "alice", kinds: [], anchors: [], max_frames: 3, max_tokens: 500, ...fields },
  });
  const db = join(dir, "served.db");

  function expectNoForgery(stderr: string) {
    expect(stderr).not.toContain("\u001b");
    expect(stderr).not.toContain("\u202e");
    expect(stderr.split("\n").filter((line) => line.startsWith("[facts] error: forged"))).toEqual([]);
  }

  it("answers HTTP 400 naming the field, and writes nothing raw to stderr", async () => {
    expect((await run("assert", "--db", db, "--subject", "alice", "--predicate", "p", "--statement", "s")).code).toBe(
      0,
    );
    const child = children.spawn([FACTS_BIN, "serve", "--db", db, "--http", "127.0.0.1:0"]);
    const url = await listeningUrl(child, 20_000);
    await postEnvelope(url, { type: "handshake", protocol_version: "ocp/1.0-draft" });
    for (const field of ["as_of", "as_known_at"]) {
      const { status, message } = await postEnvelope(url, query({ [field]: FORGED }));
      expect(status, JSON.stringify(message)).toBe(400);
      expect(message.type).toBe("error");
      expect(message.message).toMatch(new RegExp(`^invalid query: ${field}: '2024-01-01\\\\u001b\\[2J\\\\n`));
    }
    expect((await postEnvelope(url, query({ as_of: "2024-06-01" }))).status).toBe(200);
    child.process.kill("SIGTERM");
    await child.exited;
    expectNoForgery(child.stderr());
  });

  it("answers an error envelope over stdio, and the session goes on", async () => {
    const child = children.spawn([FACTS_BIN, "serve", "--db", db]);
    await handshake(child);
    child.send(query({ as_of: FORGED }));
    expect(await nextEnvelope(child)).toMatchObject({ type: "error", message: expect.stringMatching(/as_of/) });
    child.send(query({ as_of: "2024-06-01" }));
    expect((await nextEnvelope(child)).type).toBe("frames");
    child.send({ type: "shutdown" });
    expect((await child.exited).code).toBe(0);
    expectNoForgery(child.stderr());
  });
});

describe("ocp-facts and files it did not make", () => {
  it("never writes an export through a link planted where it writes aside", async () => {
    const db = join(dir, "exported.db");
    expect((await run("assert", "--db", db, "--subject", "a", "--predicate", "p", "--statement", "s")).code).toBe(0);
    const victim = join(dir, "victim.txt");
    writeFileSync(victim, "precious\n");
    const out = join(dir, "facts.jsonl");
    symlinkSync(victim, `${out}.partial`); // the name the export once used, predictable
    const result = await run("export", "--db", db, "--out", out);
    expect(result.code, result.stderr).toBe(0);
    expect(readFileSync(victim, "utf8")).toBe("precious\n");
    expect(readFileSync(out, "utf8")).toBe(`${await exported(db)}\n`);
  });

  it("refuses a SQLite file that is not a store without changing a byte of it", async () => {
    const foreign = join(dir, "someone-else.sqlite");
    const other = new Database(foreign);
    other.exec("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('mine')");
    other.close();
    const before = sha256(foreign);
    for (const command of [
      ["query", "x"],
      ["assert", "--subject", "a", "--predicate", "p", "--statement", "s"],
    ]) {
      const result = await run(command[0] as string, "--db", foreign, ...command.slice(1));
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/a SQLite database but not an ocp-facts store.*OCP_FACTS_NO_STORE/);
    }
    expect(sha256(foreign)).toBe(before);
    expect(existsSync(`${foreign}-wal`)).toBe(false);
  });
});
