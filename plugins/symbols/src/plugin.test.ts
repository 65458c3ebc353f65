/**
 * The plugin inside a real provider, in-process: frames, citations, digests,
 * relations, anchors, freshness, and answers while the first build is running.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { type ContextFrame, contentDigest, createTokenCounter, type Provider, sliceLines } from "ocp-provider";
import { connectInMemory } from "ocp-provider/testing";
import { afterEach, describe, expect, it } from "vitest";
import { symbolsProvider } from "./provider.js";
import { type FixtureTree, fixtureTree, recordingLog } from "./test-support/fixture-tree.js";

const trees: FixtureTree[] = [];
const providers: Provider[] = [];
afterEach(async () => {
  for (const provider of providers.splice(0)) await provider.close();
  for (const tree of trees.splice(0)) tree.remove();
});

function setup(options: { watch?: boolean; firstBuildWaitMs?: number; timeoutMs?: number; tree?: FixtureTree } = {}) {
  const tree = options.tree ?? fixtureTree();
  if (options.tree === undefined) trees.push(tree);
  const log = recordingLog();
  const provider = symbolsProvider({
    root: tree.root,
    workers: 0,
    progress: false,
    watch: options.watch ?? false,
    firstBuildWaitMs: options.firstBuildWaitMs,
    timeoutMs: options.timeoutMs,
    logger: log,
  });
  providers.push(provider);
  return { tree, log, provider };
}

/** The test hook that makes every file of a build take at least this long (ms), for the tests that set it. */
const BUILD_DELAY_ENV = "OCP_SYMBOLS_TEST_BUILD_DELAY_MS";
afterEach(() => {
  delete process.env[BUILD_DELAY_ENV];
});

/** The fixtures plus `count` generated modules and one distinctive function, `computeChecksumDigest`. */
function bigTree(count: number): FixtureTree {
  const tree = fixtureTree();
  trees.push(tree);
  for (let i = 0; i < count; i++)
    tree.write(`gen/part${i}.ts`, `export function part${i}(): number {\n  return ${i};\n}\n`);
  tree.write(
    "gen/zz/checksum.ts",
    "/** Digests a buffer. */\nexport function computeChecksumDigest(): string {\n  return '';\n}\n",
  );
  return tree;
}

/** Rows in the cache file, read by a connection of its own (what another process would see). */
function savedFiles(root: string): { files: number; complete: boolean } {
  const db = new Database(join(root, ".ocp-cache", "symbols.db"), { readonly: true, fileMustExist: true });
  try {
    const { files } = db.prepare("SELECT count(*) AS files FROM files").get() as { files: number };
    return { files, complete: db.prepare("SELECT 1 FROM meta WHERE key = 'complete'").get() !== undefined };
  } finally {
    db.close();
  }
}

async function until(predicate: () => boolean, what: string, log: { lines: string[] }): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen:\n${log.lines.join("\n")}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const query = (goal: string, extra: Record<string, unknown> = {}) => ({
  goal,
  kinds: [],
  anchors: [],
  max_frames: 5,
  max_tokens: 4000,
  ...extra,
});

/** Waits for the first build to finish (its "index ready" line). */
async function built(log: { lines: string[] }): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (!log.lines.some((line) => line.includes("index ready"))) {
    if (Date.now() > deadline) throw new Error(`no 'index ready' line:\n${log.lines.join("\n")}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const counter = createTokenCounter();

function expectVerifiable(frame: ContextFrame, root: string) {
  const [, first, last] = /^L(\d+)(?:-(\d+))?$/.exec(frame.provenance[0]?.range ?? "") ?? [];
  const path = frame.citation_label?.replace(/ L\d+(-\d+)?$/, "") as string;
  const source = readFileSync(join(root, path), "utf8");
  expect(frame.content).toBe(sliceLines(source, Number(first), Number(last ?? first)));
  expect(frame.provenance[0]?.digest).toBe(contentDigest(frame.content));
  expect(frame.token_cost).toBe(counter.count(frame.content));
}

describe("symbols plugin", () => {
  it("declares symbol frames and a graph, and answers the handshake before any build", async () => {
    const { provider, log } = setup();
    expect(provider.capabilities).toMatchObject({ query: { kinds: ["symbol"] }, graph: true, upsert: false });
    expect(provider.info.data_flow).toEqual({ reads: true, writes: false, egress: false });
    const host = connectInMemory(provider);
    expect((await host.handshake()).type).toBe("handshake_ack");
    await built(log);
    await host.close();
  });

  it("answers 'Config.retry' with the method, cited by file and lines, verifiable against the file", async () => {
    const { provider, tree, log } = setup();
    await provider.start();
    await built(log);
    const result = await provider.query(query("Where is Config.retry defined?"));
    // Config.retry is exported in Java, Python and TypeScript: same tier, so ties go by path. Each
    // region ships the method or a larger view of it (the budget holds these small files whole).
    expect(result.frames.slice(0, 3).map((frame) => frame.title?.split(" and ")[0])).toEqual([
      "Config.retry (method)",
      "Config.retry (method)",
      "Config.retry (method)",
    ]);
    const typescript = result.frames.find((frame) => frame.citation_label?.startsWith("typescript/"));
    const [, first, last] = /^L(\d+)-(\d+)$/.exec(typescript?.provenance[0]?.range ?? "") ?? [];
    expect(Number(first)).toBeLessThanOrEqual(30);
    expect(Number(last)).toBeGreaterThanOrEqual(41);
    expect(typescript).toMatchObject({
      kind: "symbol",
      citation_label: `typescript/config.ts L${first}-${last}`,
      provenance: [{ type: "file", method: "ts-morph", by: "symbols", range: `L${first}-${last}` }],
    });
    expect(typescript?.score).toBeGreaterThanOrEqual(0.6);
    expect(typescript?.relations.map((relation) => relation.display_name)).toContain("Config (class)");
    const methods = new Set(result.frames.map((frame) => frame.provenance[0]?.method));
    expect(methods).toEqual(new Set(["ts-morph", "tree-sitter"]));
    for (const frame of result.frames) expectVerifiable(frame, tree.root);
    // With one frame of 100 tokens, the first of them ships as the method itself: doc comment, signature, body.
    const tight = await provider.query(query("Where is Config.retry defined?", { max_frames: 1, max_tokens: 100 }));
    expect(tight.frames).toHaveLength(1);
    expect(tight.frames[0]?.title).toBe("Config.retry (method)");
    expectVerifiable(tight.frames[0] as ContextFrame, tree.root);
  });

  it("stays within the budget, cutting at line boundaries with a rewritten citation", async () => {
    const { provider, tree, log } = setup();
    await provider.start();
    await built(log);
    for (const maxTokens of [0, 15, 40, 200]) {
      const result = await provider.query(query("Config", { max_tokens: maxTokens, max_frames: 3 }));
      expect(result.frames.reduce((sum, frame) => sum + frame.token_cost, 0)).toBeLessThanOrEqual(maxTokens);
      expect(result.frames.length).toBeLessThanOrEqual(3);
      expect(result.truncated).toBe(true);
      for (const frame of result.frames) expectVerifiable(frame, tree.root);
    }
  });

  it("ranks the anchored file's symbol first, and lists an open file's symbols when nothing else matches", async () => {
    const { provider, log } = setup();
    await provider.start();
    await built(log);
    const anchored = await provider.query(query("retry", { anchors: ["python/config.py"] }));
    expect(anchored.frames[0]?.citation_label).toMatch(/^python\/config\.py /);
    const outline = await provider.query(query("what is in here", { anchors: ["go/server.go"] }));
    expect(outline.frames.length).toBeGreaterThan(0);
    for (const frame of outline.frames) expect(frame.citation_label).toMatch(/^go\/server\.go /);
  });

  it("answers from the edited file after a change, and forgets a deleted one", async () => {
    const { provider, tree, log } = setup();
    await provider.start();
    await built(log);
    writeFileSync(join(tree.root, "go/server.go"), "package server\n\n// Launch starts it all.\nfunc Launch() {}\n");
    const launched = await provider.query(query("Launch"));
    expect(launched.frames[0]?.title).toMatch(/^Launch \(function\)/);
    expect(launched.frames[0]?.citation_label).toMatch(/^go\/server\.go L[13]-4$/);
    expect(launched.frames[0]?.content).toContain("// Launch starts it all.\nfunc Launch() {}\n");
    rmSync(join(tree.root, "rust/config.rs"));
    const rust = await provider.query(query("Config::new"));
    expect(rust.frames.some((frame) => frame.citation_label?.startsWith("rust/"))).toBe(false);
  });

  it("with the watcher, answers from a file edited just before the query (no waiting in between)", async () => {
    const { provider, tree, log } = setup({ watch: true });
    await provider.start();
    await built(log);
    for (let round = 0; round < 5; round++) {
      writeFileSync(join(tree.root, "go/server.go"), `package server\n\nfunc Launch${round}() {}\n`);
      const result = await provider.query(query(`Launch${round}`));
      expect(result.frames[0]?.title).toMatch(new RegExp(`^Launch${round} \\(function\\)`));
    }
  });

  it("waits for a small first build, within the search's time limit, so the first answer is complete", async () => {
    // By default a query waits as long as the time limit allows; a long limit keeps a loaded machine from mattering.
    const { provider, log } = setup({ timeoutMs: 120_000 });
    const incomplete: string[] = [];
    const result = await provider.query(query("Config.retry"), { incomplete });
    expect(result.frames[0]?.title).toMatch(/^Config\.retry \(method\)/);
    expect(incomplete).toEqual([]);
    expect(log.lines.some((line) => line.includes("index ready"))).toBe(true);
  });

  it("during the first build, answers from what is indexed, marked truncated and saying why; whole once built", async () => {
    process.env[BUILD_DELAY_ENV] = "20"; // 300 files: at least 6 s, whatever the machine
    const tree = bigTree(300);
    const { provider, log } = setup({ tree, firstBuildWaitMs: 100 });
    await provider.start();
    const incomplete: string[] = [];
    const partial = await provider.query(query("computeChecksumDigest"), { incomplete });
    expect(partial.truncated).toBe(true);
    // Nothing was left out for the budget: how much the unindexed files hold is not known, so no estimate.
    expect(partial.dropped_estimate).toBeUndefined();
    expect(incomplete).toEqual([
      expect.stringMatching(
        /^symbols: the symbol index is still being built \(\d+ (of \d+ files indexed|files indexed, the tree still being listed)\), so matches in the other files are missing/,
      ),
    ]);
    expect(log.lines).toContainEqual(
      expect.stringMatching(/^warn: .*the index is still being built .* marked truncated/),
    );
    expect(log.lines.some((line) => line.includes("index ready"))).toBe(false);
    await built(log);
    const after: string[] = [];
    const whole = await provider.query(query("computeChecksumDigest"), { incomplete: after });
    expect(whole.frames[0]?.title).toMatch(/^computeChecksumDigest \(function\)/);
    expect(whole.truncated).toBe(false);
    expect(after).toEqual([]);
  });

  it("saves a first build cut short by close(); the next provider goes on from it, partial until it is done", async () => {
    process.env[BUILD_DELAY_ENV] = "20";
    const tree = bigTree(300);
    const first = setup({ tree, firstBuildWaitMs: 0 });
    await first.provider.start();
    await until(
      () => existsSync(join(tree.root, ".ocp-cache", "symbols.db")) && savedFiles(tree.root).files > 0,
      "a first commit",
      first.log,
    );
    await first.provider.close();
    const stopped = first.log.lines.find((line) => line.includes("index build stopped before it finished"));
    const [, indexed, listed] = /: (\d+) of (\d+) files \(\d+ symbols\) indexed and saved/.exec(stopped ?? "") ?? [];
    expect(stopped, first.log.lines.join("\n")).toBeDefined();
    // Every file the build parsed is in the cache, none lost with an unwritten batch; and it is not called complete.
    expect(savedFiles(tree.root)).toEqual({ files: Number(indexed), complete: false });
    expect(Number(indexed)).toBeLessThan(Number(listed));

    const second = setup({ tree, firstBuildWaitMs: 0 });
    await second.provider.start();
    expect(second.log.lines).toContainEqual(
      expect.stringMatching(
        new RegExp(`^info: .*index loaded: ${indexed} files, \\d+ symbols from a first build that did not finish`),
      ),
    );
    const incomplete: string[] = [];
    const partial = await second.provider.query(query("computeChecksumDigest"), { incomplete });
    expect(partial.truncated).toBe(true);
    expect(incomplete).toHaveLength(1);
    await built(second.log);
    const ready = second.log.lines.find((line) => line.includes("index ready")) ?? "";
    const [, files, parsed, unchanged, skipped] =
      /index ready: (\d+) files, \d+ symbols in [\d.]+ s \((\d+) parsed, (\d+) unchanged, \d+ removed, (\d+) skipped\)/.exec(
        ready,
      ) ?? [];
    expect(Number(files)).toBe(Number(listed));
    // It went on from the saved files: only the others were parsed (a saved file written moments before it was
    // read is hashed again, racy-clean, and found unchanged).
    expect(Number(parsed) + Number(skipped)).toBe(Number(listed) - Number(indexed));
    expect(Number(unchanged)).toBeLessThanOrEqual(Number(indexed));
    expect(savedFiles(tree.root)).toEqual({ files: Number(listed), complete: true });
  });

  it("never serves a symlink's target at query time, even one with the indexed size and mtime", async () => {
    const { provider, tree, log } = setup();
    const outside = mkdtempSync(join(tmpdir(), "ocp-symbols-outside-"));
    trees.push({ root: outside, write: () => {}, remove: () => rmSync(outside, { recursive: true, force: true }) });
    // Same length, same (old) mtime: by size and mtime the link's target looks like the indexed file.
    tree.write("src/users.py", "def load_users():\n    return 'inside'\n");
    writeFileSync(join(outside, "secret.py"), "def load_users():\n    return 'SECRET'\n");
    const old = new Date(Date.UTC(2020, 0, 1));
    utimesSync(join(tree.root, "src/users.py"), old, old);
    utimesSync(join(outside, "secret.py"), old, old);
    utimesSync(join(tree.root, "src"), old, old);
    await provider.start();
    await built(log);
    rmSync(join(tree.root, "src/users.py"));
    symlinkSync(join(outside, "secret.py"), join(tree.root, "src/users.py"));
    // The directory's mtime put back too (as tar or rsync -a would): stat-checking sees nothing new.
    utimesSync(join(tree.root, "src"), old, old);
    for (let round = 0; round < 2; round++) {
      const result = await provider.query(query("load_users"));
      expect(JSON.stringify(result)).not.toContain("SECRET");
      expect(result.frames.some((frame) => frame.citation_label?.startsWith("src/users.py"))).toBe(false);
    }
    expect(log.lines.filter((line) => line.startsWith("warn:") && line.includes("src/users.py"))).toEqual([
      expect.stringMatching(/skipped src\/users\.py: OCP_ERR_SYMLINK/),
    ]);
  });
});
