/**
 * A fresh repository's first queries, as a new user meets them: the real `ocp-symbols`
 * bin and `ocp query` on a symbols project's provider, in child processes, over a git
 * repository of a few hundred generated modules. Checked: a query during the first build
 * is answered honestly partial (`truncated`, and why on stderr) — one-shot, piped (EOF) —
 * never "complete"; what the build parsed is saved when the process ends early (EOF,
 * SIGTERM on `--index`, SIGKILL); and the next run goes on from it, still calling its
 * answers partial until the build is done, then answering in full.
 *
 * The build is slowed by a test hook (every file takes at least 25 ms), so it outlasts a
 * query's wait whatever the machine's speed: no assertion depends on timing.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { type Child, exitWithin, OCP_BIN, REPO, trackChildren } from "../test-support/child.js";
import { handshake, nextEnvelope, PROTOCOL_VERSION } from "../test-support/envelopes.js";
import { gitIn } from "../test-support/git-fixture.js";
import * as check from "../test-support/provider-checks.js";

const exec = promisify(execFile);
const BIN = fileURLToPath(new URL("../../plugins/symbols/bin/ocp-symbols.js", import.meta.url));
/** The provider a symbols project is made with (the template's src/provider.ts, named). */
const PROJECT_PROVIDER = "test/fixtures/symbols-project-provider.ts";
const MODULES = 300;
/** The generated modules plus the one defining `computeChecksumDigest`. */
const FILES = MODULES + 1;
/** Every file of a build takes at least this long: 301 files, at least 7.5 s, past any query's wait (4 s). */
const SLOW = { OCP_LOG: "info", OCP_SYMBOLS_TEST_BUILD_DELAY_MS: "25" };
const FAST = { OCP_LOG: "info" };
const WAIT_MS = 120_000;

const children = trackChildren();
const dirs: string[] = [];
afterEach(() => {
  children.killAll();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh git repository: `MODULES` small modules and `src/checksum.ts`, committed, with no cache. */
function freshRepository(): string {
  const repo = mkdtempSync(join(tmpdir(), "ocp-symbols-fresh-"));
  dirs.push(repo);
  mkdirSync(join(repo, "src", "gen"), { recursive: true });
  for (let i = 0; i < MODULES; i++) {
    writeFileSync(
      join(repo, "src", "gen", `module${i}.ts`),
      `/** Module ${i}. */\nexport class Widget${i} {\n  render(depth: number): string {\n    return "w${i}".repeat(depth);\n  }\n}\n`,
    );
  }
  writeFileSync(
    join(repo, "src", "checksum.ts"),
    "/** The checksum of a buffer, as hex. */\nexport function computeChecksumDigest(bytes: Uint8Array): string {\n  return String(bytes.length);\n}\n",
  );
  gitIn(repo, ["init", "-q", "-b", "main"]);
  gitIn(repo, ["add", "-A"]);
  gitIn(repo, ["commit", "-q", "-m", "A repository nobody has indexed yet"], 0);
  return repo;
}

/** What the cache file holds, read by a connection of its own (as another process sees it). */
function saved(repo: string): { files: number; complete: boolean } {
  const file = join(repo, ".ocp-cache", "symbols.db");
  if (!existsSync(file)) return { files: 0, complete: false };
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    // Before the schema is made there is nothing to count.
    if (db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'files'").get() === undefined) {
      return { files: 0, complete: false };
    }
    const { files } = db.prepare("SELECT count(*) AS files FROM files").get() as { files: number };
    return { files, complete: db.prepare("SELECT 1 FROM meta WHERE key = 'complete'").get() !== undefined };
  } finally {
    db.close();
  }
}

/** Waits until the build has committed at least one file to the cache. */
async function firstCommit(repo: string, child: Child): Promise<number> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const { files } = saved(repo);
    if (files > 0) return files;
    if (Date.now() > deadline) throw new Error(`nothing was committed; stderr:\n${child.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const query = (goal: string) => ({
  type: "query",
  query: { goal, kinds: [], anchors: [], max_frames: 5, max_tokens: 1024 },
});

/**
 * A host's piped batch: the handshake and `goals`, then EOF once `beforeEof` resolves.
 * Resolves with the frames replies, after the process exited 0.
 */
async function pipedBatch(
  repo: string,
  goals: string[],
  env: Record<string, string>,
  beforeEof: (child: Child) => Promise<unknown> = async () => {},
) {
  const child = children.spawn([BIN, "--root", repo, "--no-progress"], env);
  child.send({ type: "handshake", protocol_version: PROTOCOL_VERSION });
  for (const goal of goals) child.send(query(goal));
  await beforeEof(child);
  child.process.stdin.end();
  expect((await nextEnvelope(child, WAIT_MS)).type).toBe("handshake_ack");
  const replies = [];
  for (const _ of goals) {
    const reply = await nextEnvelope(child, WAIT_MS);
    check.genericFrames(reply, 1024, 5);
    replies.push(reply as { type: string; result: { frames: { title: string }[]; truncated: boolean } });
  }
  expect((await exitWithin(child, WAIT_MS)).code).toBe(0);
  return { replies, stderr: child.stderr() };
}

/** The "stopped before it finished" line's counts: files indexed and saved, of those listed (undefined: not listed yet). */
function stoppedAt(stderr: string): { indexed: number; listed: number | undefined } {
  const match =
    /index build stopped before it finished: (\d+) of (\d+|\?) files \(\d+ symbols\) indexed and saved/.exec(stderr);
  if (match === null) throw new Error(`no "stopped" line; stderr:\n${stderr}`);
  return { indexed: Number(match[1]), listed: match[2] === "?" ? undefined : Number(match[2]) };
}

/** `ocp-symbols --index` to the end: the files it parsed (or found unparseable) this time. */
async function indexToTheEnd(repo: string): Promise<number> {
  const child = children.spawn([BIN, "--index", "--root", repo, "--no-progress"], FAST);
  expect((await exitWithin(child, WAIT_MS)).code, child.stderr()).toBe(0);
  const ready =
    /index ready: (\d+) files, \d+ symbols in [\d.]+ s \((\d+) parsed, \d+ unchanged, \d+ removed, (\d+) skipped\)/.exec(
      child.stderr(),
    );
  expect(ready, child.stderr()).not.toBeNull();
  expect(Number(ready?.[1])).toBe(FILES);
  return Number(ready?.[2]) + Number(ready?.[3]);
}

const STILL_BUILDING =
  /warn: .*the index is still being built \(\d+ (of \d+ files indexed|files indexed, the tree still being listed)\)/;

// Several child processes a test, each at least seconds long by design: a generous bound, never reached when all is well.
describe("a fresh repository's first queries (real child processes)", { timeout: 4 * WAIT_MS }, () => {
  it("piped (EOF): every answer is honestly partial, what was parsed is saved, the next run goes on and answers in full", async () => {
    const repo = freshRepository();
    const goals = ["computeChecksumDigest", "how is the checksum of a buffer computed", "Widget7.render"];
    // EOF only once the build has committed something: there is then something to keep.
    const first = await pipedBatch(repo, goals, SLOW, (child) => firstCommit(repo, child));
    for (const reply of first.replies) expect(reply.result.truncated).toBe(true);
    expect(first.stderr).toMatch(STILL_BUILDING);
    const { indexed, listed } = stoppedAt(first.stderr);
    expect(listed).toBe(FILES);
    expect(indexed).toBeGreaterThan(0);
    // All it parsed is in the cache (none lost with an unwritten batch), and the cache is not called complete.
    expect(saved(repo)).toEqual({ files: indexed, complete: false });

    // The next run goes on from the saved files: it parses only the others.
    expect(await indexToTheEnd(repo)).toBe(FILES - indexed);
    expect(saved(repo)).toEqual({ files: FILES, complete: true });

    const again = await pipedBatch(repo, ["computeChecksumDigest"], FAST);
    expect(again.replies[0]?.result).toMatchObject({ truncated: false });
    expect(again.replies[0]?.result.frames[0]?.title).toBe("computeChecksumDigest (function)");
    expect(again.stderr).not.toMatch(/still being built/);
  });

  it("killed mid-build (SIGKILL): the committed files survive, and the next run still calls its answers partial", async () => {
    const repo = freshRepository();
    const child = children.spawn([BIN, "--root", repo, "--no-progress"], SLOW);
    // The handshake starts the provider (its setup starts the build).
    await handshake(child, { timeoutMs: WAIT_MS });
    const committed = await firstCommit(repo, child);
    child.process.kill("SIGKILL");
    await child.exited;
    const left = saved(repo);
    expect(left.files).toBeGreaterThanOrEqual(committed);
    expect(left.complete).toBe(false);

    // The cache a killed process left (its WAL included) is opened as ours, and known for a first build cut short.
    const next = await pipedBatch(repo, ["computeChecksumDigest"], SLOW);
    expect(next.stderr).toMatch(
      new RegExp(`index loaded: ${left.files} files, \\d+ symbols from a first build that did not finish`),
    );
    expect(next.stderr).not.toMatch(/OCP_ERR_SYMBOLS_CACHE/);
    expect(next.replies[0]?.result.truncated).toBe(true);
    expect(next.stderr).toMatch(STILL_BUILDING);
    expect(saved(repo).files).toBeGreaterThanOrEqual(left.files);
  });

  it("ocp-symbols --index stopped by SIGTERM saves what it parsed, says so and exits 143; the next --index does the rest", async () => {
    const repo = freshRepository();
    const child = children.spawn([BIN, "--index", "--root", repo, "--no-progress"], SLOW);
    await firstCommit(repo, child);
    child.process.kill("SIGTERM");
    expect((await exitWithin(child, WAIT_MS)).code).toBe(143);
    const { indexed, listed } = stoppedAt(child.stderr());
    expect(listed).toBe(FILES);
    expect(saved(repo)).toEqual({ files: indexed, complete: false });
    expect(await indexToTheEnd(repo)).toBe(FILES - indexed);
  });

  it("ocp query on a symbols project's provider (one-shot): partial and says so, never 'complete'; what it parsed is saved", async () => {
    // The fixture is the template's provider, as `npm run create -- X --template symbols` writes it.
    const template = readFileSync(join(REPO, "templates/symbols/src/provider.ts.hbs"), "utf8");
    expect(readFileSync(join(REPO, PROJECT_PROVIDER), "utf8")).toBe(
      template.replace("{{{json providerName}}}", '"symbols-project"'),
    );
    const repo = freshRepository();
    const { stdout, stderr } = await exec(
      process.execPath,
      [OCP_BIN, "query", PROJECT_PROVIDER, "how is the checksum of a buffer computed"],
      { cwd: REPO, env: { ...process.env, ...SLOW, OCP_ROOT: repo, NO_COLOR: "1" }, timeout: WAIT_MS },
    );
    const summary = stdout.trimEnd().split("\n").at(-1) ?? "";
    expect(summary).toMatch(/^\d+ frames? · \d+ \/ \d+ tokens · truncated(, ~\d+ more not shipped)?$/);
    expect(stderr).toMatch(STILL_BUILDING);
    // On a loaded machine the query's wait can end before the tree is even listed: that is said too.
    const { indexed, listed } = stoppedAt(stderr);
    expect([FILES, undefined]).toContain(listed);
    expect(saved(repo)).toEqual({ files: indexed, complete: false });
  });
});
