/**
 * The index over a real tree (a temporary copy of the fixtures), with the real file
 * lister (ripgrep), real SQLite and real parsers: what is indexed, what is skipped,
 * and how edits, deletions and additions show up.
 */
import { renameSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_CACHE_DIR } from "../store/cache-dir.js";
import { SymbolStore } from "../store/store.js";
import { type FixtureTree, fixtureTree, recordingLog } from "../test-support/fixture-tree.js";
import { Indexer, type IndexerOptions } from "./indexer.js";

const trees: FixtureTree[] = [];
const indexers: Indexer[] = [];
afterEach(async () => {
  for (const indexer of indexers.splice(0)) await indexer.close();
  for (const tree of trees.splice(0)) tree.remove();
});

function tree(): FixtureTree {
  const made = fixtureTree();
  trees.push(made);
  return made;
}

function open(root: string, options: Partial<IndexerOptions> = {}) {
  const log = recordingLog();
  const store = SymbolStore.open({ file: join(root, "index.db"), root, log });
  const indexer = new Indexer({
    root,
    store,
    hidden: false,
    maxFileSizeBytes: 1024 * 1024,
    workers: 0,
    watch: false,
    progress: false,
    log,
    ...options,
  });
  indexers.push(indexer);
  return { indexer, log };
}

const names = (indexer: Indexer, path: string) => {
  const file = indexer.table.fileByPath(path);
  return file === undefined ? undefined : indexer.table.entriesOf(file.id).map((entry) => entry.qualifiedName);
};

describe("Indexer", () => {
  it("indexes every language of the fixture tree, skipping binary and unparseable files with a warning", async () => {
    const fixtures = tree();
    fixtures.write("assets/blob.ts", Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x00, 0x00, 0x01]));
    fixtures.write("broken/half.ts", "export function kept(): void {}\nexport class Broken {\n  method( {\n");
    fixtures.write("broken/deep.ts", `export const deep = ${"(".repeat(20_000)}1${")".repeat(20_000)};\n`);
    fixtures.write("notes/readme.md", "# not code\n");
    const { indexer, log } = open(fixtures.root);
    const stats = await indexer.build();
    expect(stats).toMatchObject({ files: 10, parsed: 8, skipped: 2, removed: 0 });
    expect(names(indexer, "typescript/config.ts")).toContain("Config.retry");
    expect(names(indexer, "javascript/legacy.js")).toContain("Queue.push");
    expect(names(indexer, "python/config.py")).toContain("Config.retry");
    expect(names(indexer, "go/server.go")).toContain("Server.Start");
    expect(names(indexer, "rust/config.rs")).toContain("Config::new");
    expect(names(indexer, "java/Config.java")).toContain("Config.retry");
    expect(names(indexer, "broken/half.ts")).toContain("kept");
    expect(names(indexer, "assets/blob.ts")).toEqual([]);
    expect(indexer.table.fileByPath("assets/blob.ts")?.status).toBe("binary");
    expect(indexer.table.fileByPath("broken/deep.ts")?.status).toBe("parse-error");
    expect(names(indexer, "notes/readme.md")).toBeUndefined();
    const warnings = log.lines.filter((line) => line.startsWith("warn:"));
    expect(warnings).toEqual([
      expect.stringMatching(/^warn: skipped assets\/blob\.ts: binary file$/),
      expect.stringMatching(/^warn: skipped broken\/deep\.ts: could not be parsed: Maximum call stack/),
    ]);
  });

  it("re-indexes an edited file, drops a deleted one and picks up a new one (stat-checking)", async () => {
    const fixtures = tree();
    const { indexer } = open(fixtures.root);
    await indexer.build();
    expect(names(indexer, "go/server.go")).toContain("Server.Start");

    fixtures.write("go/server.go", "package server\n\n// Renamed.\nfunc Launch() {}\n");
    rmSync(join(fixtures.root, "rust/config.rs"));
    fixtures.write("python/extra.py", "def added():\n    pass\n");
    await indexer.refresh();

    expect(names(indexer, "go/server.go")).toEqual(["Launch"]);
    expect(names(indexer, "rust/config.rs")).toBeUndefined();
    expect(names(indexer, "python/extra.py")).toEqual(["added"]);
    const symbols = [...indexer.table.groups()].flat().map((entry) => entry.qualifiedName);
    expect(symbols).not.toContain("Config::new");
    expect(symbols).not.toContain("Server.Start");
  });

  it("sees a same-size rewrite that kept the old mtime (a racy timestamp) by its hash", async () => {
    const fixtures = tree();
    const path = join(fixtures.root, "python/config.py");
    const { indexer } = open(fixtures.root);
    await indexer.build();
    const before = statSync(path);
    const text = (await import("node:fs")).readFileSync(path, "utf8");
    writeFileSync(path, text.replace("def unlisted():", "def unlisten():"));
    utimesSync(path, before.atime, before.mtime);
    expect(statSync(path).size).toBe(before.size);
    await indexer.refresh();
    expect(names(indexer, "python/config.py")).toContain("unlisten");
    expect(names(indexer, "python/config.py")).not.toContain("unlisted");
  });

  it("notices changes through the directory watcher", async () => {
    const fixtures = tree();
    const { indexer } = open(fixtures.root, { watch: true });
    await indexer.build();
    expect(indexer.watching).toBe(true);
    // An editor's atomic save: write a temporary file, rename it over the original.
    fixtures.write("java/.Config.java.tmp", "package example;\n\npublic class Renamed {}\n");
    renameSync(join(fixtures.root, "java/.Config.java.tmp"), join(fixtures.root, "java/Config.java"));
    fixtures.write("go/sub/added.go", "package sub\n\nfunc Added() {}\n");
    const deadline = Date.now() + 5000;
    while (names(indexer, "java/Config.java")?.[0] !== "Renamed" || names(indexer, "go/sub/added.go") === undefined) {
      if (Date.now() > deadline) throw new Error(`changes not seen: ${names(indexer, "java/Config.java")}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
      await indexer.refresh();
    }
    expect(names(indexer, "java/Config.java")).toEqual(["Renamed"]);
    expect(names(indexer, "go/sub/added.go")).toEqual(["Added"]);
  });

  it("re-indexes a file whose bytes are reported stale even when its stat looks unchanged", async () => {
    const fixtures = tree();
    const { indexer } = open(fixtures.root);
    await indexer.build();
    const path = join(fixtures.root, "go/server.go");
    const before = statSync(path);
    writeFileSync(path, "package server\n\nfunc Other() {}\n".padEnd(before.size, " "));
    utimesSync(path, before.atime, before.mtime);
    await indexer.refresh([], ["go/server.go"]);
    expect(names(indexer, "go/server.go")).toEqual(["Other"]);
  });

  it("reopens a cache without parsing anything that did not change", async () => {
    const fixtures = tree();
    const first = open(fixtures.root).indexer;
    const built = await first.build();
    await first.close();
    const { indexer } = open(fixtures.root);
    expect(indexer.table.symbolCount).toBe(built.symbols);
    const again = await indexer.build();
    expect(again.parsed).toBe(0);
    expect(again.symbols).toBe(built.symbols);
  });

  it("gives the same index through the worker pool as in the main thread", async () => {
    const fixtures = tree();
    for (let i = 0; i < 60; i++) {
      fixtures.write(
        `gen/module${i}.ts`,
        `/** Module ${i}. */\nexport function make${i}(): number {\n  return ${i};\n}\n`,
      );
    }
    const inline = open(fixtures.root).indexer;
    await inline.build();
    const expected = [...inline.table.files()].map((file) => [file.path, names(inline, file.path)]).sort();
    // Term bags too: they cross from the workers as JSON, typed arrays and all.
    const bags = new Map([...inline.table.files()].map((file) => [file.path, inline.table.bag(file.id)]));
    expect(bags.get("gen/module7.ts")?.terms.length).toBeGreaterThan(0);
    await inline.close();
    rmSync(join(fixtures.root, "index.db"));
    const pooled = open(fixtures.root, { workers: 1 }).indexer;
    const stats = await pooled.build();
    expect(stats.parsed).toBe(67);
    expect([...pooled.table.files()].map((file) => [file.path, names(pooled, file.path)]).sort()).toEqual(expected);
    for (const file of pooled.table.files()) expect(pooled.table.bag(file.id), file.path).toEqual(bags.get(file.path));
    await pooled.close();
    // And as stored: the cache reopened holds the same bags.
    const reopened = open(fixtures.root).indexer;
    for (const file of reopened.table.files())
      expect(reopened.table.bag(file.id), file.path).toEqual(bags.get(file.path));
  });

  it("never indexes its own cache directory", async () => {
    const fixtures = tree();
    fixtures.write(`${DEFAULT_CACHE_DIR}/stray.ts`, "export const stray = 1;\n");
    const { indexer } = open(fixtures.root);
    await indexer.build();
    expect(names(indexer, `${DEFAULT_CACHE_DIR}/stray.ts`)).toBeUndefined();
  });
});
