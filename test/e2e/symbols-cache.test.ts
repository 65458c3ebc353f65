/**
 * A hostile checkout cannot aim `ocp-symbols` at a database outside its root: the real
 * bin in a child process, over a real `git clone` of a repository that commits
 * `.ocp-cache/symbols.db` (or `.ocp-cache` itself) as a symbolic link, or commits a
 * SQLite database of its own as the cache. Each is refused with a clear error, and the
 * database it names keeps its table, its row and its bytes.
 */
import { createHash } from "node:crypto";
import {
  existsSync,
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
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { exitWithin, trackChildren } from "../test-support/child.js";
import { handshake } from "../test-support/envelopes.js";
import { gitIn } from "../test-support/git-fixture.js";

const BIN = fileURLToPath(new URL("../../plugins/symbols/bin/ocp-symbols.js", import.meta.url));
const EXIT_MS = 30_000;
const children = trackChildren();
const dirs: string[] = [];
afterEach(() => {
  children.killAll();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "ocp-symbols-hostile-"));
  dirs.push(dir);
  return dir;
}

/** Someone else's database, with a row in it and this format's user_version (what the old code trusted). */
function victimDatabase(file: string): string {
  const db = new Database(file);
  db.exec("CREATE TABLE precious (value TEXT); INSERT INTO precious VALUES ('gold')");
  db.pragma("user_version = 4");
  db.close();
  return file;
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

/** A repository whose one commit holds `src/a.ts` and whatever `plant` adds; returns a fresh clone of it. */
function cloneOf(plant: (repo: string) => void): string {
  const repo = join(tempDir(), "repo");
  mkdirSync(join(repo, "src"), { recursive: true });
  writeFileSync(join(repo, "src", "a.ts"), "/** Retries a task. */\nexport function retry(): void {}\n");
  plant(repo);
  gitIn(repo, ["init", "-q", "-b", "main"]);
  gitIn(repo, ["add", "-A"]);
  gitIn(repo, ["commit", "-q", "-m", "A checkout with a cache of its own"], 0);
  const clone = join(tempDir(), "clone");
  gitIn(repo, ["clone", "-q", repo, clone]);
  return clone;
}

async function index(root: string): Promise<{ code: number | null; stderr: string }> {
  const child = children.spawn([BIN, "--root", root, "--index", "--no-progress"], { OCP_LOG: "info" });
  const { code } = await exitWithin(child, EXIT_MS);
  return { code, stderr: child.stderr() };
}

describe("ocp-symbols over a hostile checkout (a real child process, a real git clone)", () => {
  it("refuses a committed .ocp-cache/symbols.db that links to another database, which keeps its table", async () => {
    const victim = victimDatabase(join(tempDir(), "victim.db"));
    const before = digest(victim);
    const clone = cloneOf((repo) => {
      mkdirSync(join(repo, ".ocp-cache"));
      symlinkSync(victim, join(repo, ".ocp-cache", "symbols.db"));
    });
    const { code, stderr } = await index(clone);
    expect(code).toBe(1);
    expect(stderr).toMatch(
      /OCP_ERR_SYMBOLS_CACHE_UNSAFE: \S*\.ocp-cache\/symbols\.db is a symbolic link: the cache is never reached through a link/,
    );
    expect(precious(victim)).toEqual([{ value: "gold" }]);
    expect(digest(victim)).toBe(before);
  });

  it("serving, disables only the index: the handshake is answered and the victim keeps its table", async () => {
    const victim = victimDatabase(join(tempDir(), "victim.db"));
    const clone = cloneOf((repo) => {
      mkdirSync(join(repo, ".ocp-cache"));
      symlinkSync(victim, join(repo, ".ocp-cache", "symbols.db"));
    });
    const child = children.spawn([BIN, "--root", clone, "--no-progress"], { OCP_LOG: "info" });
    expect(await handshake(child, { timeoutMs: EXIT_MS })).toMatchObject({ type: "handshake_ack" });
    const deadline = Date.now() + EXIT_MS;
    while (!child.stderr().includes("OCP_ERR_SYMBOLS_CACHE_UNSAFE") && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(child.stderr()).toMatch(/OCP_ERR_PLUGIN_SETUP: .*OCP_ERR_SYMBOLS_CACHE_UNSAFE/);
    child.process.stdin.end();
    expect((await exitWithin(child, EXIT_MS)).code).toBe(0);
    expect(precious(victim)).toEqual([{ value: "gold" }]);
  });

  it("refuses a committed .ocp-cache that links to a directory outside, and creates nothing there", async () => {
    const outside = tempDir();
    const victim = victimDatabase(join(outside, "symbols.db"));
    const before = digest(victim);
    const clone = cloneOf((repo) => symlinkSync(outside, join(repo, ".ocp-cache")));
    const { code, stderr } = await index(clone);
    expect(code).toBe(1);
    expect(stderr).toMatch(/OCP_ERR_SYMBOLS_CACHE_UNSAFE: \S*\.ocp-cache is a symbolic link/);
    expect(readdirSync(outside)).toEqual(["symbols.db"]);
    expect(digest(victim)).toBe(before);
  });

  it("refuses a committed database it did not create, even as a plain file in the root, and leaves it as it was", async () => {
    const clone = cloneOf((repo) => {
      mkdirSync(join(repo, ".ocp-cache"));
      victimDatabase(join(repo, ".ocp-cache", "symbols.db"));
    });
    const cache = join(clone, ".ocp-cache", "symbols.db");
    const before = digest(cache);
    const { code, stderr } = await index(clone);
    expect(code).toBe(1);
    expect(stderr).toMatch(
      /OCP_ERR_SYMBOLS_CACHE_FOREIGN: \S*symbols\.db is a SQLite database ocp-symbols did not create/,
    );
    expect(precious(cache)).toEqual([{ value: "gold" }]);
    expect(digest(cache)).toBe(before);
  });

  it("indexes a clean clone of the same repository, into a cache it marks as its own", async () => {
    const clone = cloneOf(() => {});
    const { code, stderr } = await index(clone);
    expect(stderr).toContain("index ready: 1 files, 1 symbols");
    expect(code).toBe(0);
    const cache = join(clone, ".ocp-cache", "symbols.db");
    expect(existsSync(cache)).toBe(true);
    const db = new Database(cache, { readonly: true });
    expect(db.pragma("application_id", { simple: true })).toBe(0x4f435073);
    db.close();
  });
});
