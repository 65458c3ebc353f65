/**
 * Where the index lives. Default `<root>/.ocp-cache/symbols.db`: beside the code it
 * describes, shared by every provider on that root, and gitignored by a `.gitignore`
 * we write into the directory when we create it (as pytest and ruff do with theirs).
 * When the root cannot be written, the index goes to the user's cache directory
 * (`$XDG_CACHE_HOME` or `~/.cache`, under `ocp-symbols/<hash of the root>`); when
 * that fails too, it is kept in memory for this process only.
 *
 * What is under the root is the checkout's to decide: a clone may hold `.ocp-cache` as
 * a symbolic link to anywhere. So a cache directory under the root is never reached
 * through a link: each directory from the root down is made one at a time (`mkdir`
 * never follows a link) or checked with `lstat`, and a link — wherever it points, into
 * the root too — or anything but a directory is refused (`OCP_ERR_SYMBOLS_CACHE_UNSAFE`),
 * not worked around. The database file in it is checked as it is opened (cache-file.ts).
 */
import { createHash } from "node:crypto";
import { accessSync, constants, lstatSync, mkdirSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join, relative, sep } from "node:path";
import type { Logger } from "ocp-provider";
import { CACHE_ERRORS, CacheError } from "./errors.js";

/** The cache directory's name under the root. */
export const DEFAULT_CACHE_DIR = ".ocp-cache";
/** The database's file name in the cache directory. */
export const DATABASE_FILE = "symbols.db";

const GITIGNORE = "# Created by ocp-plugin-symbols: a cache, safe to delete.\n*\n";

/** Writes the `.gitignore` of a directory we just created (`wx`: never through a link, never over a file). */
function ignoreAll(dir: string): void {
  try {
    writeFileSync(join(dir, ".gitignore"), GITIGNORE, { flag: "wx" });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
}

/** Creates directory `path` (its parent checked already) unless it exists; refuses a link or a non-directory. */
function plainDirectory(path: string): boolean {
  try {
    mkdirSync(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  const stats = lstatSync(path);
  if (stats.isSymbolicLink()) {
    throw new CacheError(
      CACHE_ERRORS.UNSAFE,
      `${path} is a symbolic link: the cache is never reached through a link; remove it, or pass --cache-dir`,
    );
  }
  if (!stats.isDirectory()) {
    throw new CacheError(CACHE_ERRORS.UNSAFE, `${path} is not a directory; remove it, or pass --cache-dir`);
  }
  return false;
}

/**
 * The directory `segments` under `root`, each made or checked by {@link plainDirectory};
 * the last one, if made now, gets its `.gitignore`. Throws if the result is not writable.
 */
function directoryUnder(root: string, segments: readonly string[]): string {
  let dir = root;
  let created = false;
  for (const segment of segments) {
    dir = join(dir, segment);
    created = plainDirectory(dir);
  }
  if (created) ignoreAll(dir);
  accessSync(dir, constants.W_OK);
  return dir;
}

/** A directory outside the root, named by the user: made (with a `.gitignore`) if it does not exist. */
function directoryElsewhere(dir: string): string {
  if (mkdirSync(dir, { recursive: true }) !== undefined) ignoreAll(dir);
  accessSync(dir, constants.W_OK);
  return dir;
}

/** The segments of `dir` below whichever spelling of the root it lies under, or undefined if none. */
function segmentsUnder(dir: string, roots: readonly string[]): string[] | undefined {
  for (const root of roots) {
    const rel = relative(root, dir);
    if (rel === "") return [];
    if (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel)) return rel.split(sep);
  }
  return undefined;
}

/** The user-level cache directory for `root`. */
export function userCacheDir(root: string): string {
  const base = process.env.XDG_CACHE_HOME || join(homedir(), ".cache");
  return join(base, "ocp-symbols", createHash("sha256").update(root).digest("hex").slice(0, 16));
}

/** Options of {@link resolveDatabaseFile}. */
export interface CacheLocation {
  /** The root, symlinks resolved. */
  root: string;
  /** The root as configured (absolute), when it is spelled otherwise: a `cacheDir` under it is under the root. */
  configuredRoot?: string;
  /** The directory asked for, absolute; default `<root>/.ocp-cache` with its fallbacks. */
  cacheDir?: string;
  log: Logger;
}

/**
 * The database file for `root`: in `cacheDir` when given (no fallback: the caller
 * asked for that place; under the root, it is held to the same no-link rule as the
 * default), else the default with its fallbacks. Returns `:memory:` when nothing on
 * disk is writable. Throws a `CacheError` for a cache directory reached through a link.
 */
export function resolveDatabaseFile(options: CacheLocation): string {
  const roots = [options.root, ...(options.configuredRoot !== undefined ? [options.configuredRoot] : [])];
  if (options.cacheDir !== undefined) {
    const segments = segmentsUnder(options.cacheDir, roots);
    const dir = segments !== undefined ? directoryUnder(options.root, segments) : directoryElsewhere(options.cacheDir);
    return join(dir, DATABASE_FILE);
  }
  try {
    return join(directoryUnder(options.root, [DEFAULT_CACHE_DIR]), DATABASE_FILE);
  } catch (error) {
    if (error instanceof CacheError) throw error;
  }
  const fallback = userCacheDir(options.root);
  try {
    const dir = directoryElsewhere(fallback);
    options.log.info(`the root is not writable; keeping the index in ${dir}`);
    return join(dir, DATABASE_FILE);
  } catch {
    options.log.warn("no writable cache directory; the index is kept in memory and rebuilt on every start");
    return ":memory:";
  }
}
