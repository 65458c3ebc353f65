/**
 * Options the command lines accept do what they say, checked on the real bins:
 * `ocp query --as-of` refuses what is not a time, naming the option; `ocp-ripgrep
 * --glob` includes and excludes as rg's does, without reaching .git or hidden files;
 * `ocp-facts` takes its store options before the command too.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { exitWithin, type Finished, OCP_BIN, REPO, runNode, trackChildren } from "../test-support/child.js";
import { handshake, nextEnvelope } from "../test-support/envelopes.js";

const tmp = mkdtempSync(join(tmpdir(), "ocp-options-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const children = trackChildren();
afterEach(children.killAll);

async function node(args: string[]): Promise<Finished> {
  return runNode(args, {
    cwd: REPO,
    env: { ...process.env, NO_COLOR: "1" },
  });
}

describe("ocp query --as-of", () => {
  it.each([
    ["yesterday", /--as-of 'yesterday': expected RFC 3339 \(2024-05-01T09:30:00Z\) or a date \(2024-05-01\)/],
    ["2024-02-30", /--as-of '2024-02-30': 2024-02 has no day 30/],
    ["2024-05-01T09:30:00", /needs its offset/],
  ])("refuses %s with exit 2, naming the option", async (value, message) => {
    const { code, stdout, stderr } = await node([
      OCP_BIN,
      "query",
      "examples/hello-provider.ts",
      "x",
      "--as-of",
      value,
    ]);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toMatch(message);
    expect(stderr).toMatch(/^ocp query: .*\(usage: ocp query /);
  });

  it("passes an RFC 3339 time or a date on to the provider", async () => {
    for (const value of ["2024-05-01", "2024-05-01T09:30:00.5+02:00"]) {
      const { code, stdout } = await node([
        OCP_BIN,
        "query",
        "examples/hello-provider.ts",
        "retries",
        "--as-of",
        value,
        "--json",
      ]);
      expect(code).toBe(0);
      expect(JSON.parse(stdout).frames[0].title).toBe("Team note 2");
    }
  });
});

describe("ocp-ripgrep --glob", () => {
  const root = join(tmp, "tree");
  for (const [path, text] of <[string, string][]>[
    ["src/app.ts", "NEEDLE in ts\n"],
    ["src/app.test.ts", "NEEDLE in a test\n"],
    ["src/lib.js", "NEEDLE in js\n"],
    [".hidden/secret.ts", "NEEDLE hidden\n"],
    [".git/config", "NEEDLE in git\n"],
  ]) {
    mkdirSync(join(root, path, ".."), { recursive: true });
    writeFileSync(join(root, path), text);
  }

  /** The files the bin's frames come from, for a search for NEEDLE with these arguments. */
  async function filesFound(args: string[]): Promise<string[]> {
    const child = children.spawn([join(REPO, "plugins/ripgrep/bin/ocp-ripgrep.js"), "--root", root, ...args]);
    expect((await handshake(child, { timeoutMs: 20_000 })).type).toBe("handshake_ack");
    child.send({
      type: "query",
      query: { goal: "NEEDLE", query_text: "NEEDLE", kinds: [], anchors: [], max_frames: 20, max_tokens: 4000 },
    });
    const reply = await nextEnvelope(child, 20_000);
    child.send({ type: "shutdown" });
    expect((await exitWithin(child, 20_000)).code).toBe(0);
    const frames = (reply as { result: { frames: { citation_label: string }[] } }).result.frames;
    return frames.map((frame) => frame.citation_label.replace(/ L\d+(-\d+)?$/, "")).sort();
  }

  it("includes with *.ts, excludes with !*.test.ts, and ** reaches neither .git nor hidden files", async () => {
    const [all, ts, notTests, everything] = await Promise.all([
      filesFound([]),
      filesFound(["--glob", "*.ts"]),
      filesFound(["--glob", "*.ts", "--glob", "!*.test.ts"]),
      filesFound(["--glob", "**"]),
    ]);
    expect(all).toEqual(["src/app.test.ts", "src/app.ts", "src/lib.js"]);
    expect(ts).toEqual(["src/app.test.ts", "src/app.ts"]);
    expect(notTests).toEqual(["src/app.ts"]);
    expect(everything).toEqual(all);
  });

  it("with --hidden, a glob reaches hidden files but never .git", async () => {
    expect(await filesFound(["--hidden", "--glob", "**"])).toEqual([
      ".hidden/secret.ts",
      "src/app.test.ts",
      "src/app.ts",
      "src/lib.js",
    ]);
  });
});

describe("ocp-facts store options before the command", () => {
  it("--db f.db assert … works, as does --db after the command, on the same store", async () => {
    const facts = join(REPO, "plugins/facts/bin/ocp-facts.js");
    const db = join(tmp, "f.db");
    const before = await node([
      facts,
      "--db",
      db,
      "assert",
      "--subject",
      "alice",
      "--predicate",
      "works_at",
      "--statement",
      "Alice works at Acme",
    ]);
    expect(before.code, before.stderr).toBe(0);
    const after = await node([facts, "query", "--db", db, "--subject", "alice", "--json"]);
    expect(after.code, after.stderr).toBe(0);
    expect(JSON.parse(after.stdout).map((f: { statement: string }) => f.statement)).toEqual(["Alice works at Acme"]);
    const json = await node([facts, "--json", `--db=${db}`, "history", "--subject", "alice"]);
    expect(JSON.parse(json.stdout)).toHaveLength(1);
  });
});
