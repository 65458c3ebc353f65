/**
 * The text of the files frames cite, read at query time and checked against the
 * index: a file whose size and mtime are as indexed (and not racy) is the indexed
 * version; otherwise its bytes must hash as indexed, or it is stale. Recently read
 * files are kept (up to a size), so repeated queries over the same code read nothing.
 */
import { readFileSync, statSync } from "node:fs";
import { hashBytes } from "../extract/extract.js";
import { racy } from "../store/freshness.js";
import type { FileRow } from "../store/store.js";

/** A file's text and where each of its lines starts. */
export interface Source {
  readonly text: string;
  /** Offsets where each line starts, and the text's length last. */
  readonly starts: readonly number[];
}

/** Offsets where each line starts, and the text's length last: line n is `text.slice(starts[n-1], starts[n])`. */
export function lineStarts(text: string): number[] {
  const starts = [0];
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) starts.push(at + 1);
  if (starts[starts.length - 1] !== text.length) starts.push(text.length);
  return starts;
}

interface Cached extends Source {
  readonly hash: string;
  readonly size: number;
  readonly mtimeMs: number;
}

/** Reads cited files, verified against their index rows, with a bounded cache. */
export class SourceCache {
  private readonly cache = new Map<string, Cached>();
  private chars = 0;

  /**
   * @param maxChars text kept across queries (UTF-16 units); the least recently used goes first
   * @param onVerified called when a racy file's bytes were hashed and found as indexed
   */
  constructor(
    private readonly maxChars = 16 * 1024 * 1024,
    private readonly onVerified: (file: FileRow) => void = () => {},
  ) {}

  /** The file's text if it is still the version `file` describes, else null (changed, deleted, unreadable). */
  read(absolute: string, file: FileRow): Source | null {
    let stat: { size: number; mtimeMs: number } | undefined;
    try {
      stat = statSync(absolute, { throwIfNoEntry: false });
    } catch {
      return null;
    }
    if (stat === undefined) return null;
    const trusted = stat.size === file.size && stat.mtimeMs === file.mtimeMs && !racy(file);
    const cached = this.cache.get(absolute);
    if (
      cached !== undefined &&
      cached.hash === file.hash &&
      cached.size === stat.size &&
      cached.mtimeMs === stat.mtimeMs
    ) {
      if (trusted || !racy(file)) {
        this.cache.delete(absolute); // re-inserted: most recently used last
        this.cache.set(absolute, cached);
        return cached;
      }
    }
    let bytes: Buffer;
    try {
      bytes = readFileSync(absolute);
    } catch {
      return null;
    }
    if (!trusted) {
      if (hashBytes(bytes) !== file.hash) return null;
      this.onVerified(file);
    }
    const text = bytes.toString("utf8");
    const source: Cached = { text, starts: lineStarts(text), hash: file.hash, size: stat.size, mtimeMs: stat.mtimeMs };
    this.remember(absolute, source);
    return source;
  }

  private remember(absolute: string, source: Cached): void {
    const previous = this.cache.get(absolute);
    if (previous !== undefined) {
      this.chars -= previous.text.length;
      this.cache.delete(absolute);
    }
    if (source.text.length > this.maxChars) return;
    this.cache.set(absolute, source);
    this.chars += source.text.length;
    for (const [key, old] of this.cache) {
      if (this.chars <= this.maxChars) break;
      this.cache.delete(key);
      this.chars -= old.text.length;
    }
  }
}
