/**
 * A checkout decides what is under its root, `.ocp-cache` included: the cache is never
 * reached through a link, and a database the plugin did not create is refused as it
 * was found — its bytes unchanged, not even switched to WAL mode.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  existsSync,
  linkSync,
  mkdirSync,
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
import type { Logger } from "ocp-provider";
import { afterEach, describe, expect, it } from "vitest";
import { DATABASE_FILE, DEFAULT_CACHE_DIR, resolveDatabaseFile } from "./cache-dir.js";
import { SIDECARS } from "./cache-file.js";
import { CACHE_ERRORS, CacheError } from "./errors.js";
import { APPLICATION_ID } from "./ownership.js";
import { INDEX_FORMAT, SymbolStore } from "./store.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "ocp-symbols-cache-"));
  dirs.push(dir);
  return dir;
}

function recordingLog(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const add = (level: string) => (message: string) => lines.push(`${level}: ${message}`);
  return { lines, error: add("error"), warn: add("warn"), info: add("info"), debug: add("debug") };
}

/** A database of someone else's, with a row in it. */
function victimDatabase(file: string, pragmas: string[] = []): void {
  const db = new Database(file);
  db.exec("CREATE TABLE precious (value TEXT); INSERT INTO precious VALUES ('gold')");
  for (const pragma of pragmas) db.pragma(pragma);
  db.close();
}

const digest = (file: string) => createHash("sha256").update(readFileSync(file)).digest("hex");

function precious(file: string): unknown[] {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare("SELECT value FROM precious").all();
  } finally {
    db.close();
  }
}

/** The error `run` throws (it must throw). */
function thrown(run: () => unknown): CacheError {
  try {
    run();
  } catch (error) {
    return error as CacheError;
  }
  throw new Error("expected an error");
}

const open = (file: string, root: string) => SymbolStore.open({ file, root, log: recordingLog() });

describe("the cache directory is never reached through a link", () => {
  it.each([
    ["outside the root", (outside: string) => outside],
    ["inside the root", (_outside: string, root: string) => join(root, "src")],
  ])("refuses <root>/.ocp-cache linked to a directory %s, and creates nothing there", (_where, target) => {
    const root = tempDir();
    const outside = tempDir();
    mkdirSync(join(root, "src"));
    symlinkSync(target(outside, root), join(root, DEFAULT_CACHE_DIR));
    const error = thrown(() => resolveDatabaseFile({ root, log: recordingLog() }));
    expect(error).toBeInstanceOf(CacheError);
    expect(error.code).toBe(CACHE_ERRORS.UNSAFE);
    expect(error.message).toMatch(/^OCP_ERR_SYMBOLS_CACHE_UNSAFE: .*\.ocp-cache is a symbolic link/);
    expect(readdirSync(outside)).toEqual([]);
    expect(readdirSync(join(root, "src"))).toEqual([]);
  });

  it("refuses a .ocp-cache that is a file, rather than falling back elsewhere", () => {
    const root = tempDir();
    writeFileSync(join(root, DEFAULT_CACHE_DIR), "not a directory\n");
    expect(thrown(() => resolveDatabaseFile({ root, log: recordingLog() })).code).toBe(CACHE_ERRORS.UNSAFE);
  });

  it("holds a --cache-dir under the root to the same rule, under either spelling of the root", () => {
    const root = tempDir();
    const outside = tempDir();
    const spelled = join(tempDir(), "root-link");
    symlinkSync(root, spelled);
    symlinkSync(outside, join(root, "cache"));
    for (const cacheDir of [join(root, "cache", "nested"), join(spelled, "cache", "nested")]) {
      const error = thrown(() => resolveDatabaseFile({ root, configuredRoot: spelled, cacheDir, log: recordingLog() }));
      expect(error.code).toBe(CACHE_ERRORS.UNSAFE);
    }
    expect(readdirSync(outside)).toEqual([]);
    // A plain directory under the root is made one level at a time, and used.
    const file = resolveDatabaseFile({ root, cacheDir: join(root, "index", "symbols"), log: recordingLog() });
    expect(file).toBe(join(root, "index", "symbols", DATABASE_FILE));
    expect(readFileSync(join(root, "index", "symbols", ".gitignore"), "utf8")).toMatch(/^\*$/m);
  });

  it("takes a --cache-dir outside the root as given, links and all: that path is the user's", () => {
    const root = tempDir();
    const linked = join(tempDir(), "cache-link");
    symlinkSync(tempDir(), linked);
    expect(resolveDatabaseFile({ root, cacheDir: join(linked, "c"), log: recordingLog() })).toBe(
      join(linked, "c", DATABASE_FILE),
    );
  });
});

describe("the database file is never reached through a link", () => {
  it("refuses symbols.db linked to another database, which keeps its table and its bytes", () => {
    const dir = tempDir();
    const victim = join(tempDir(), "victim.db");
    victimDatabase(victim, [`user_version = ${INDEX_FORMAT + 1}`]);
    const before = digest(victim);
    symlinkSync(victim, join(dir, DATABASE_FILE));
    const error = thrown(() => open(join(dir, DATABASE_FILE), dir));
    expect(error.code).toBe(CACHE_ERRORS.UNSAFE);
    expect(error.message).toContain("is a symbolic link");
    expect(precious(victim)).toEqual([{ value: "gold" }]);
    expect(digest(victim)).toBe(before);
  });

  it("refuses a dangling link, and creates nothing where it points", () => {
    const dir = tempDir();
    const target = join(tempDir(), "made-here.db");
    symlinkSync(target, join(dir, DATABASE_FILE));
    expect(thrown(() => open(join(dir, DATABASE_FILE), dir)).code).toBe(CACHE_ERRORS.UNSAFE);
    expect(existsSync(target)).toBe(false);
  });

  it.each(SIDECARS)("refuses a %s sidecar that is a link, and leaves its target as it was", (suffix) => {
    const dir = tempDir();
    const file = join(dir, DATABASE_FILE);
    open(file, dir).close();
    const victim = join(tempDir(), `victim${suffix}`);
    writeFileSync(victim, "someone else's file\n");
    rmSync(`${file}${suffix}`, { force: true });
    symlinkSync(victim, `${file}${suffix}`);
    const error = thrown(() => open(file, dir));
    expect(error.code).toBe(CACHE_ERRORS.UNSAFE);
    expect(error.message).toContain(`${DATABASE_FILE}${suffix} is a symbolic link`);
    expect(readFileSync(victim, "utf8")).toBe("someone else's file\n");
  });

  it("refuses a database with another name (a hard link), and a FIFO", () => {
    const dir = tempDir();
    const other = join(dir, "other.db");
    victimDatabase(other);
    linkSync(other, join(dir, DATABASE_FILE));
    expect(thrown(() => open(join(dir, DATABASE_FILE), dir)).message).toContain("other names (hard links)");
    const fifoDir = tempDir();
    execFileSync("mkfifo", [join(fifoDir, DATABASE_FILE)]);
    expect(thrown(() => open(join(fifoDir, DATABASE_FILE), fifoDir)).message).toContain("not a regular file");
  });
});

describe("a database the plugin did not create is never written", () => {
  it.each([
    ["its user_version is this format's", [`user_version = ${INDEX_FORMAT}`]],
    ["it is in WAL mode", ["journal_mode = WAL"]],
    ["it is another program's (application_id)", ["application_id = 1234"]],
  ])("refuses a foreign database when %s, its bytes unchanged", (_why, pragmas) => {
    const dir = tempDir();
    const file = join(dir, DATABASE_FILE);
    victimDatabase(file, pragmas);
    const before = digest(file);
    const error = thrown(() => open(file, dir));
    expect(error).toBeInstanceOf(CacheError);
    expect(error.code).toBe(CACHE_ERRORS.FOREIGN);
    expect(error.message).toMatch(/^OCP_ERR_SYMBOLS_CACHE_FOREIGN: .* is a SQLite database ocp-symbols did not create/);
    expect(precious(file)).toEqual([{ value: "gold" }]);
    expect(digest(file)).toBe(before);
  });

  it("refuses an empty database another program has marked as its own", () => {
    const dir = tempDir();
    const file = join(dir, DATABASE_FILE);
    const db = new Database(file);
    db.pragma("application_id = 1234");
    db.close();
    expect(thrown(() => open(file, dir)).code).toBe(CACHE_ERRORS.FOREIGN);
  });

  it("refuses a database shaped like an old cache of ours with one table more", () => {
    const dir = tempDir();
    const file = join(dir, DATABASE_FILE);
    open(file, dir).close();
    const db = new Database(file);
    db.pragma("application_id = 0");
    db.exec("CREATE TABLE precious (value TEXT)");
    db.close();
    expect(thrown(() => open(file, dir)).code).toBe(CACHE_ERRORS.FOREIGN);
  });

  it("marks its caches, and fills an empty database (nothing in it to lose)", () => {
    const dir = tempDir();
    const file = join(dir, DATABASE_FILE);
    new Database(file).close();
    open(file, dir).close();
    const db = new Database(file, { readonly: true });
    expect(db.pragma("application_id", { simple: true })).toBe(APPLICATION_ID);
    db.close();
  });
});

describe("a cache of ours from before the mark (application_id 0)", () => {
  /** A cache as the plugin wrote it before the mark: this format's schema, application_id 0. */
  function unmarkedCache(dir: string, version = INDEX_FORMAT): string {
    const file = join(dir, DATABASE_FILE);
    const store = open(file, dir);
    store.writeFiles([
      {
        path: "a.ts",
        size: 1,
        mtimeMs: 1,
        language: "typescript",
        method: "ts-morph",
        indexedAtMs: 1,
        extraction: { status: "ok", hash: "h", lineCount: 1, symbols: [] },
      },
    ]);
    store.close();
    const db = new Database(file);
    db.pragma("application_id = 0");
    db.pragma(`user_version = ${version}`);
    db.close();
    return file;
  }

  it("of this format and root is kept as it is, and marked", () => {
    const dir = tempDir();
    const file = unmarkedCache(dir);
    const store = open(file, dir);
    expect(store.counts().files).toBe(1);
    store.close();
    const db = new Database(file, { readonly: true });
    expect(db.pragma("application_id", { simple: true })).toBe(APPLICATION_ID);
    db.close();
  });

  it("of an older format is rebuilt, and marked", () => {
    const dir = tempDir();
    const log = recordingLog();
    const file = unmarkedCache(dir, INDEX_FORMAT - 1);
    const store = SymbolStore.open({ file, root: dir, log });
    expect(store.counts().files).toBe(0);
    store.close();
    expect(log.lines.join("\n")).toContain(`incompatible (format ${INDEX_FORMAT - 1}, this is ${INDEX_FORMAT})`);
    const db = new Database(file, { readonly: true });
    expect(db.pragma("application_id", { simple: true })).toBe(APPLICATION_ID);
    db.close();
  });
});
