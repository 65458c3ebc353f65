/**
 * The index over a real tree (a temporary copy of the fixtures), with the real file
 * lister (ripgrep), real SQLite and real parsers: what is indexed, what is skipped,
 * and how edits, deletions and additions show up.
 */
import {
  mkdtempSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { hashBytes } from "../extract/extract.js";
import { DEFAULT_CACHE_DIR } from "../store/cache-dir.js";
import { SymbolStore } from "../store/store.js";
import { type FixtureTree, fixtureTree, recordingLog } from "../test-support/fixture-tree.js";
import { Indexer, type IndexerOptions } from "./indexer.js";
import type { ExtractOutcome } from "./read-extract.js";
import { ExtractionPool } from "./worker-pool.js";

const trees: FixtureTree[] = [];
const indexers: Indexer[] = [];
const outsides: string[] = [];
afterEach(async () => {
  for (const indexer of indexers.splice(0)) await indexer.close();
  for (const tree of trees.splice(0)) tree.remove();
  for (const dir of outsides.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A directory outside any root, holding a Python file whose symbol a root's file also defines. */
function outsideSecret(): { dir: string; file: string; bytes: Buffer } {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "ocp-symbols-outside-")));
  outsides.push(dir);
  const file = join(dir, "secret.py");
  writeFileSync(file, "def load_users():\n    return 'TOP-SECRET-outside-the-root'\n");
  return { dir, file, bytes: readFileSync(file) };
}

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

  it.each([0, 1])(
    "refuses a file swapped for a symlink while the first build runs (%i workers): never indexed, one warning",
    async (workers) => {
      const fixtures = tree();
      // Enough files that the build takes many slices; the target is both last by path (the main
      // thread's order) and smallest (the pool's order), so it is read after the swap below.
      for (let i = 0; i < 600; i++) {
        fixtures.write(
          `gen/m${i}.py`,
          `"""Generated module ${i}, padded to outweigh the target."""\ndef f${i}():\n    return ${i}\n`,
        );
      }
      fixtures.write("zz/users.py", "def load_users():\n    return 1\n");
      const secret = outsideSecret();
      const { indexer, log } = open(fixtures.root, { workers });
      const build = indexer.build();
      for (;;) {
        const state = indexer.building;
        if (state === undefined) throw new Error("the build ended before the swap: the test tree is too small");
        if (state.total > 0 && state.done > 0 && state.done < state.total - 100) break;
        await new Promise((resume) => setImmediate(resume));
      }
      // Listed and stat-ed as a regular file; replaced by a link before it is read.
      rmSync(join(fixtures.root, "zz/users.py"));
      symlinkSync(secret.file, join(fixtures.root, "zz/users.py"));
      await build;
      expect(indexer.table.fileByPath("zz/users.py")).toBeUndefined();
      expect([...indexer.table.files()].map((file) => file.hash)).not.toContain(hashBytes(secret.bytes));
      expect(indexer.table.named("load_users")).toEqual([]);
      expect(log.lines.filter((line) => line.includes("zz/users.py"))).toEqual([
        expect.stringMatching(/^warn: skipped zz\/users\.py: OCP_ERR_SYMLINK: /),
      ]);
    },
  );

  it("in stat-check mode, drops (never re-reads through) a file swapped for a symlink, however its directory's mtime looks", async () => {
    const fixtures = tree();
    fixtures.write("src/users.py", "def load_users():\n    return 1\n");
    const secret = outsideSecret();
    // A fixed directory mtime, put back after the swap (as tar or rsync -a would): no fresh listing is forced.
    const pinned = new Date(Date.UTC(2024, 0, 1));
    utimesSync(join(fixtures.root, "src"), pinned, pinned);
    const { indexer, log } = open(fixtures.root);
    await indexer.build();
    expect(names(indexer, "src/users.py")).toEqual(["load_users"]);
    rmSync(join(fixtures.root, "src/users.py"));
    symlinkSync(secret.file, join(fixtures.root, "src/users.py"));
    utimesSync(join(fixtures.root, "src"), pinned, pinned);
    await indexer.refresh();
    expect(indexer.table.fileByPath("src/users.py")).toBeUndefined();
    expect(log.lines.some((line) => /^warn: skipped src\/users\.py: OCP_ERR_SYMLINK/.test(line))).toBe(true);
  });

  it("refuses a file reached through a directory swapped for a link to outside (stat-checking, mtimes kept)", async () => {
    const fixtures = tree();
    fixtures.write("src/users.py", "def load_users():\n    return 1\n");
    const secret = outsideSecret();
    const pinned = new Date(Date.UTC(2024, 0, 1));
    const pin = (...dirs: string[]) => {
      for (const dir of dirs) utimesSync(dir, pinned, pinned);
    };
    const { indexer, log } = open(fixtures.root);
    // Pinned after the index file is created in the root (its directory's mtime changes then).
    pin(fixtures.root, join(fixtures.root, "src"));
    await indexer.build();
    expect(names(indexer, "src/users.py")).toEqual(["load_users"]);
    // The outside directory holds a same-named file; the root's directory is replaced by a link to it.
    renameSync(secret.file, join(secret.dir, "users.py"));
    rmSync(join(fixtures.root, "src"), { recursive: true });
    symlinkSync(secret.dir, join(fixtures.root, "src"));
    pin(fixtures.root, secret.dir);
    await indexer.refresh();
    expect(indexer.table.fileByPath("src/users.py")).toBeUndefined();
    expect(indexer.table.named("load_users")).toEqual([]);
    expect(log.lines.some((line) => /^warn: skipped src\/users\.py: OCP_ERR_OUTSIDE_ROOT/.test(line))).toBe(true);
  });
});

describe("ExtractionPool", () => {
  it("refuses, in a worker thread too, a symlink and a file through a linked directory", async () => {
    const fixtures = tree();
    const secret = outsideSecret();
    symlinkSync(secret.file, join(fixtures.root, "python/link.py"));
    symlinkSync(secret.dir, join(fixtures.root, "linked"));
    const root = realpathSync(fixtures.root);
    const jobs = ["python/config.py", "python/link.py", "linked/secret.py"].map((path) => ({
      root,
      path,
      maxBytes: 1024 * 1024,
    }));
    const pool = new ExtractionPool(1);
    const outcomes = new Map<string, ExtractOutcome>();
    try {
      let next = 0;
      await pool.drain(
        () => jobs[next++],
        (job, outcome) => outcomes.set(job.path, outcome),
      );
    } finally {
      await pool.close();
    }
    expect(outcomes.get("python/config.py")?.kind).toBe("extracted");
    expect(outcomes.get("python/link.py")).toMatchObject({
      kind: "refused",
      reason: expect.stringMatching(/^OCP_ERR_SYMLINK/),
    });
    expect(outcomes.get("linked/secret.py")).toMatchObject({
      kind: "refused",
      reason: expect.stringMatching(/^OCP_ERR_OUTSIDE_ROOT/),
    });
  });
});
