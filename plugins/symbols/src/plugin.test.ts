/**
 * The plugin inside a real provider, in-process: frames, citations, digests,
 * relations, anchors, freshness, and answers while the first build is running.
 */
import { mkdtempSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
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

function setup(options: { watch?: boolean; firstBuildWaitMs?: number } = {}) {
  const tree = fixtureTree();
  trees.push(tree);
  const log = recordingLog();
  const provider = symbolsProvider({
    root: tree.root,
    workers: 0,
    progress: false,
    watch: options.watch ?? false,
    firstBuildWaitMs: options.firstBuildWaitMs ?? 1000,
    logger: log,
  });
  providers.push(provider);
  return { tree, log, provider };
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
  const deadline = Date.now() + 20_000;
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
    // Config.retry is exported in Java, Python and TypeScript: same tier, so ties go by path.
    expect(result.frames.slice(0, 3).map((frame) => frame.title)).toEqual([
      "Config.retry (method)",
      "Config.retry (method)",
      "Config.retry (method)",
    ]);
    const typescript = result.frames.find((frame) => frame.citation_label?.startsWith("typescript/"));
    expect(typescript).toMatchObject({
      id: "symbols:typescript/config.ts#Config.retry",
      kind: "symbol",
      citation_label: "typescript/config.ts L30-41",
      provenance: [{ type: "file", method: "ts-morph", by: "symbols", range: "L30-41" }],
    });
    expect(typescript?.score).toBeGreaterThanOrEqual(0.85);
    expect(typescript?.relations.map((relation) => relation.display_name)).toContain("Config (class)");
    const methods = new Set(result.frames.map((frame) => frame.provenance[0]?.method));
    expect(methods).toEqual(new Set(["ts-morph", "tree-sitter"]));
    for (const frame of result.frames) expectVerifiable(frame, tree.root);
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
    expect(launched.frames[0]).toMatchObject({ title: "Launch (function)", citation_label: "go/server.go L3-4" });
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
      expect(result.frames[0]?.title).toBe(`Launch${round} (function)`);
    }
  });

  it("waits briefly for a small first build, so the first answer is complete", async () => {
    const { provider } = setup({ firstBuildWaitMs: 20_000 });
    const result = await provider.query(query("Config.retry"));
    expect(result.frames[0]?.title).toBe("Config.retry (method)");
  });

  it("answers while the first build runs, from what is indexed so far, and says so on stderr", async () => {
    const { provider, tree, log } = setup({ firstBuildWaitMs: 0 });
    for (let i = 0; i < 400; i++)
      tree.write(`gen/part${i}.ts`, `export function part${i}(): number {\n  return ${i};\n}\n`);
    await provider.start();
    const result = await provider.query(query("part1"));
    expect(log.lines.some((line) => /still being built \(\d+ of (\d+|\?) files\)/.test(line))).toBe(true);
    expect(log.lines.some((line) => line.includes("index ready"))).toBe(false);
    expect(Array.isArray(result.frames)).toBe(true);
    await built(log);
    const after = await provider.query(query("part1"));
    expect(after.frames[0]?.title).toBe("part1 (function)");
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
