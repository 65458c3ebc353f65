/**
 * Where the index lives. Default `<root>/.ocp-cache/symbols.db`: beside the code it
 * describes, shared by every provider on that root, and gitignored by a `.gitignore`
 * we write into the directory when we create it (as pytest and ruff do with theirs).
 * When the root cannot be written, the index goes to the user's cache directory
 * (`$XDG_CACHE_HOME` or `~/.cache`, under `ocp-symbols/<hash of the root>`); when
 * that fails too, it is kept in memory for this process only.
 */
import { createHash } from "node:crypto";
import { accessSync, constants, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import type { Logger } from "ocp-provider";

/** The cache directory's name under the root. */
export const DEFAULT_CACHE_DIR = ".ocp-cache";
/** The database's file name in the cache directory. */
export const DATABASE_FILE = "symbols.db";

/** Creates `dir` (with a `.gitignore` that ignores everything in it) unless it exists; throws if unusable. */
function prepare(dir: string): void {
  if (!existsSync(dir)) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, ".gitignore"), "# Created by ocp-plugin-symbols: a cache, safe to delete.\n*\n");
  }
  accessSync(dir, constants.W_OK);
}

/** The user-level cache directory for `root`. */
export function userCacheDir(root: string): string {
  const base = process.env.XDG_CACHE_HOME || join(homedir(), ".cache");
  return join(base, "ocp-symbols", createHash("sha256").update(root).digest("hex").slice(0, 16));
}

/**
 * The database file for `root`: in `cacheDir` when given (no fallback: the caller
 * asked for that place), else the default with its fallbacks. Returns `:memory:`
 * when nothing on disk is writable.
 */
export function resolveDatabaseFile(options: { root: string; cacheDir?: string; log: Logger }): string {
  if (options.cacheDir !== undefined) {
    prepare(options.cacheDir);
    return join(options.cacheDir, DATABASE_FILE);
  }
  const places = [join(options.root, DEFAULT_CACHE_DIR), userCacheDir(options.root)];
  for (const dir of places) {
    try {
      prepare(dir);
      if (dir !== places[0]) options.log.info(`the root is not writable; keeping the index in ${dir}`);
      return join(dir, DATABASE_FILE);
    } catch {
      // Try the next place.
    }
  }
  options.log.warn("no writable cache directory; the index is kept in memory and rebuilt on every start");
  return ":memory:";
}
