/**
 * The database file, checked before SQLite opens it. better-sqlite3 opens by path, and
 * SQLite resolves every symbolic link in that path before it opens the file, so a
 * `symbols.db` (or a `symbols.db-wal`) committed as a link would send our writes to
 * whatever it names. Before the open:
 * - each sidecar SQLite may open or delete beside the file (`-journal`, `-wal`, `-shm`)
 *   must be absent or a plain file with no other name;
 * - the database is created if absent (`wx`: never through a link), then opened with
 *   `O_NOFOLLOW` by the framework's root-confined reader, confined to its directory:
 *   not a link, a regular file, really in that directory (on Linux the kernel names
 *   the open file), and with no other name (a hard link would write elsewhere too).
 * After the open, SQLite's own name for the file it opened must be that file's
 * (see `checkOpenedAs`), which catches a link swapped in between.
 */
import { closeSync, lstatSync, openSync } from "node:fs";
import { basename, dirname } from "node:path";
import { ERROR_CODES } from "ocp-provider";
import { isFileRefused, RootReader } from "ocp-provider/fs";
import { CACHE_ERRORS, CacheError } from "./errors.js";

/** The files SQLite keeps beside a database: the rollback journal, the write-ahead log and its index. */
export const SIDECARS = ["-journal", "-wal", "-shm"] as const;

function unsafe(message: string): CacheError {
  return new CacheError(CACHE_ERRORS.UNSAFE, `${message}; remove it, or pass --cache-dir`);
}

/** A sidecar is absent, or a plain file with no other name. */
function checkSidecar(path: string): void {
  let stats: ReturnType<typeof lstatSync>;
  try {
    stats = lstatSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw error;
  }
  if (stats.isSymbolicLink()) throw unsafe(`${path} is a symbolic link: SQLite would write through it`);
  if (!stats.isFile()) throw unsafe(`${path} is not a regular file`);
  if (stats.nlink > 1) throw unsafe(`${path} has other names (hard links): writes to it would show there`);
}

/**
 * Creates `file` if absent and checks it and its sidecars (see the module comment).
 * Returns the file's real path: where SQLite must say it opened it.
 */
export function prepareDatabaseFile(file: string): string {
  for (const suffix of SIDECARS) checkSidecar(`${file}${suffix}`);
  try {
    closeSync(openSync(file, "wx", 0o644));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  let opened: ReturnType<RootReader["openSync"]>;
  try {
    opened = new RootReader(dirname(file)).openSync(basename(file));
  } catch (error) {
    if (!isFileRefused(error)) throw error;
    if (error.code === ERROR_CODES.SYMLINK) {
      throw unsafe(`${file} is a symbolic link: the cache is never reached through a link`);
    }
    if (error.code === ERROR_CODES.NOT_A_FILE) throw unsafe(`${file} is not a regular file`);
    throw unsafe(`${file} is not in ${dirname(file)} (a directory on its path was replaced by a link)`);
  }
  try {
    if (opened.stats.nlink > 1) throw unsafe(`${file} has other names (hard links): writes to it would show there`);
    return opened.realPath;
  } finally {
    opened.close();
  }
}

/** Throws unless SQLite opened `file` as `expected` (its real path): a link followed since would show here. */
export function checkOpenedAs(opened: string, file: string, expected: string): void {
  if (opened !== expected) {
    throw unsafe(`${file} was opened as ${opened}, not ${expected}: a link was swapped in while it was opened`);
  }
}
