/**
 * When a file's size and mtime prove its bytes unchanged, and when they do not.
 */
import type { FileRow } from "./store.js";

/** An mtime this close (ms) to the moment a file was read does not prove its bytes unchanged later. */
export const RACY_MS = 2000;

/**
 * Size and mtime as indexed, and the mtime not racy: the bytes are the ones indexed
 * (git's rule — a write in the same timestamp as the read could hide behind an
 * unchanged mtime, so a file read within {@link RACY_MS} of its mtime is re-hashed).
 */
export function unchanged(row: FileRow, found: { size: number; mtimeMs: number }): boolean {
  return row.size === found.size && row.mtimeMs === found.mtimeMs && !racy(row);
}

/** The file was read so soon after its mtime that a later same-size write could share that mtime. */
export function racy(row: FileRow): boolean {
  return row.indexedAtMs - row.mtimeMs < RACY_MS;
}
