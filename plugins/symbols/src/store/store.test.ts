import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import type { Logger } from "ocp-provider";
import { afterEach, describe, expect, it } from "vitest";
import { termBag, termCount, textWords } from "../extract/bag.js";
import type { ExtractedSymbol } from "../model.js";
import { DATABASE_FILE, resolveDatabaseFile } from "./cache-dir.js";
import { type FileWrite, INDEX_FORMAT, SymbolStore, symbolKeys } from "./store.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "ocp-symbols-store-"));
  dirs.push(dir);
  return dir;
}

function recordingLog(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const add = (level: string) => (message: string) => lines.push(`${level}: ${message}`);
  return { lines, error: add("error"), warn: add("warn"), info: add("info"), debug: add("debug") };
}

const symbol = (name: string, line: number, container?: string): ExtractedSymbol => ({
  name,
  qualifiedName: container ? `${container}.${name}` : name,
  kind: container ? "method" : "class",
  container,
  startLine: line,
  endLine: line + 1,
  signature: `sig ${name}`,
  exported: true,
});

const write = (path: string, symbols: ExtractedSymbol[], hash = "h1"): FileWrite => ({
  path,
  size: 10,
  mtimeMs: 1000.5,
  language: "typescript",
  method: "ts-morph",
  indexedAtMs: 5000,
  extraction: { status: "ok", hash, lineCount: 20, symbols },
});

describe("SymbolStore", () => {
  it("keeps each file's term bag, written and read back exactly", () => {
    const dir = tempDir();
    const file = join(dir, "s.db");
    const bag = termBag("function retryRequest(retries) { return retries > 0 && retryRequest(retries - 1); }");
    const written = write("src/a.ts", [symbol("retryRequest", 1)]);
    let store = SymbolStore.open({ file, root: dir, log: recordingLog() });
    const [stored] = store.writeFiles([{ ...written, extraction: { ...written.extraction, bag } }]);
    expect(stored?.bag).toEqual(bag);
    store.writeFiles([write("src/b.ts", [symbol("Other", 1)])]);
    store.close();
    store = SymbolStore.open({ file, root: dir, log: recordingLog() });
    const loaded = new Map(store.filesWithNames().map((entry) => [entry.file.path, entry.bag]));
    expect(loaded.get("src/a.ts")).toEqual(bag);
    expect(termCount(loaded.get("src/a.ts")?.terms ?? new Uint32Array(), textWords("retries")[0]?.hash ?? 0)).toBe(5);
    // A file written without a bag (as by a parser that gave up) has an empty one.
    expect(loaded.get("src/b.ts")?.terms.length).toBe(0);
    store.close();
  });

  it("writes files and symbols and reads them back, replacing a file's symbols on rewrite", () => {
    const dir = tempDir();
    const store = SymbolStore.open({ file: join(dir, "s.db"), root: dir, log: recordingLog() });
    const [first] = store.writeFiles([write("src/a.ts", [symbol("Config", 1), symbol("load", 3, "Config")])]);
    expect(first?.file).toMatchObject({ path: "src/a.ts", hash: "h1", mtimeMs: 1000.5, status: "ok" });
    expect(
      store.symbolsOf(first?.file.id as number).map((row) => [row.qualifiedName, row.container, row.exported]),
    ).toEqual([
      ["Config", null, true],
      ["Config.load", "Config", true],
    ]);
    store.writeFiles([write("src/a.ts", [symbol("Other", 1)], "h2")]);
    expect(store.counts()).toEqual({ files: 1, symbols: 1 });
    expect(store.file("src/a.ts")?.hash).toBe("h2");
    const [loaded] = store.filesWithNames();
    expect(loaded?.symbols.map((row) => [row.name, row.signature])).toEqual([["Other", ""]]);
    const ids = loaded?.symbols.map((row) => row.id) ?? [];
    expect(store.symbolsById(ids).map((row) => [row.name, row.signature])).toEqual([["Other", "sig Other"]]);
    store.deleteFiles([first?.file.id as number]);
    expect(store.counts()).toEqual({ files: 0, symbols: 0 });
    store.close();
  });

  it("lays the symbols out one per row in the symbols view, for SQL", () => {
    const dir = tempDir();
    const file = join(dir, "s.db");
    const store = SymbolStore.open({ file, root: dir, log: recordingLog() });
    store.writeFiles([write("src/a.ts", [symbol("Config", 1), symbol("load", 3, "Config")])]);
    store.close();
    const raw = new Database(file, { readonly: true });
    const rows = raw
      .prepare("SELECT path, qualified, kind, start_line, signature, exported FROM symbols ORDER BY id")
      .all();
    raw.close();
    expect(rows).toEqual([
      { path: "src/a.ts", qualified: "Config", kind: "class", start_line: 1, signature: "sig Config", exported: 1 },
      { path: "src/a.ts", qualified: "Config.load", kind: "method", start_line: 3, signature: "sig load", exported: 1 },
    ]);
  });

  it("keeps what it had across reopening", () => {
    const dir = tempDir();
    const file = join(dir, "s.db");
    const store = SymbolStore.open({ file, root: dir, log: recordingLog() });
    store.writeFiles([write("a.ts", [symbol("A", 1)])]);
    store.close();
    const again = SymbolStore.open({ file, root: dir, log: recordingLog() });
    expect(again.counts()).toEqual({ files: 1, symbols: 1 });
    again.close();
  });

  it("rebuilds a cache of another format or another root instead of misreading it", () => {
    const dir = tempDir();
    const file = join(dir, "s.db");
    const store = SymbolStore.open({ file, root: dir, log: recordingLog() });
    store.writeFiles([write("a.ts", [symbol("A", 1)])]);
    store.close();
    const raw = new Database(file);
    raw.pragma(`user_version = ${INDEX_FORMAT + 1}`);
    // An older format might have had a symbols table where this one has a view.
    raw.exec("DROP VIEW symbols; CREATE TABLE symbols (id INTEGER PRIMARY KEY)");
    raw.close();
    const log = recordingLog();
    const rebuilt = SymbolStore.open({ file, root: dir, log });
    expect(rebuilt.counts()).toEqual({ files: 0, symbols: 0 });
    expect(log.lines.join("\n")).toContain(
      `incompatible (format ${INDEX_FORMAT + 1}, this is ${INDEX_FORMAT}); rebuilding`,
    );
    rebuilt.writeFiles([write("a.ts", [symbol("A", 1)])]);
    rebuilt.close();
    const elsewhere = recordingLog();
    const moved = SymbolStore.open({ file, root: join(dir, "other-root"), log: elsewhere });
    expect(moved.counts().files).toBe(0);
    expect(elsewhere.lines.join("\n")).toMatch(/made for root/);
    moved.close();
  });

  it("replaces a file that is not a database, with a warning", () => {
    const dir = tempDir();
    const file = join(dir, "s.db");
    writeFileSync(file, "this is not sqlite ".repeat(200));
    const log = recordingLog();
    const store = SymbolStore.open({ file, root: dir, log });
    expect(store.counts()).toEqual({ files: 0, symbols: 0 });
    expect(log.lines.join("\n")).toMatch(/warn: cache .* is not a usable database/);
    store.close();
  });

  it("gives symbols keys unique within their file", () => {
    expect(
      symbolKeys([symbol("size", 43, "Config"), symbol("size", 47, "Config"), symbol("load", 50, "Config")]),
    ).toEqual(["Config.size@L43", "Config.size@L47", "Config.load"]);
  });
});

describe("resolveDatabaseFile", () => {
  it("creates <root>/.ocp-cache with a .gitignore that ignores it", async () => {
    const root = tempDir();
    const file = resolveDatabaseFile({ root, log: recordingLog() });
    expect(file).toBe(join(root, ".ocp-cache", DATABASE_FILE));
    const { readFileSync } = await import("node:fs");
    expect(readFileSync(join(root, ".ocp-cache", ".gitignore"), "utf8")).toMatch(/^\*$/m);
  });

  it("uses the given cache directory", () => {
    const root = tempDir();
    const cacheDir = join(tempDir(), "nested", "cache");
    expect(resolveDatabaseFile({ root, cacheDir, log: recordingLog() })).toBe(join(cacheDir, DATABASE_FILE));
  });
});
