/**
 * Whose database a cache file is. Every cache this plugin writes carries a fixed
 * `PRAGMA application_id` (SQLite's field for "which program's file is this"), so a
 * database we did not create is recognised whatever its `user_version` says, and is
 * never emptied or rebuilt: the plugin refuses it (`OCP_ERR_SYMBOLS_CACHE_FOREIGN`)
 * and writes nothing to it, not even the switch to WAL mode.
 *
 * Caches written before the mark (formats up to {@link LAST_UNMARKED_FORMAT}, with
 * `application_id` 0) are still ours when they hold exactly what we wrote: the tables
 * `meta` (with the root it was made for) and `files`, the view `symbols`, nothing
 * else. An empty database (no schema at all) is ours to fill: nothing in it can be lost.
 * Everything is read through the SQLite connection, so a page still in the WAL counts.
 */
import type Database from "better-sqlite3";
import { CACHE_ERRORS, CacheError } from "./errors.js";

/** The `application_id` of every cache this plugin writes: "OCPs" in ASCII. */
export const APPLICATION_ID = 0x4f435073;

/** The last cache format written without {@link APPLICATION_ID}. */
export const LAST_UNMARKED_FORMAT = 4;

/** A database the plugin may write: marked as ours, ours from before the mark, or empty. */
export type Owner = "ours" | "unmarked" | "empty";

/** What an unmarked cache of ours holds, as `type name` sorted (SQLite's own `sqlite_…` objects aside). */
const UNMARKED_SCHEMA = ["table files", "table meta", "view symbols"].join("\n");

/** Whose database `db` is; throws `OCP_ERR_SYMBOLS_CACHE_FOREIGN` for one the plugin did not create. Reads only. */
export function ownerOf(db: Database.Database, file: string): Owner {
  const id = db.pragma("application_id", { simple: true }) as number;
  if (id === APPLICATION_ID) return "ours";
  const objects = db.prepare("SELECT type, name FROM sqlite_master ORDER BY type, name").all() as {
    type: string;
    name: string;
  }[];
  const version = db.pragma("user_version", { simple: true }) as number;
  if (id === 0 && objects.length === 0) return "empty";
  const schema = objects
    .filter((object) => !object.name.startsWith("sqlite_"))
    .map((object) => `${object.type} ${object.name}`)
    .join("\n");
  if (id === 0 && version >= 1 && version <= LAST_UNMARKED_FORMAT && schema === UNMARKED_SCHEMA && madeForARoot(db)) {
    return "unmarked";
  }
  throw new CacheError(
    CACHE_ERRORS.FOREIGN,
    `${file} is a SQLite database ocp-symbols did not create (application_id ${id}, user_version ${version}, ` +
      `${objects.length} schema objects); it is left as it is: move it away, or pass --cache-dir`,
  );
}

/** An unmarked cache of ours names the root it was made for. */
function madeForARoot(db: Database.Database): boolean {
  try {
    return db.prepare("SELECT value FROM meta WHERE key = 'root'").get() !== undefined;
  } catch {
    return false; // a `meta` table of other columns: not ours
  }
}
