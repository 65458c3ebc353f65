/**
 * The text of the files frames cite, read at query time and checked against the
 * index: a file whose size and mtime are as indexed (and not racy) is the indexed
 * version; otherwise its bytes must hash as indexed, or it is stale. Recently read
 * files are kept (up to a size), so repeated queries over the same code read nothing.
 * Every file is opened through the root-confined reader, even when its text is cached:
 * a file that became a symlink is stale at once, and its re-index refuses it.
 */
import type { RootReader } from "ocp-provider/fs";
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
   * @param reader the root's confined reader: every cited file is opened through it
   * @param maxChars text kept across queries (UTF-16 units); the least recently used goes first
   * @param onVerified called when a racy file's bytes were hashed and found as indexed
   */
  constructor(
    private readonly reader: RootReader,
    private readonly maxChars = 16 * 1024 * 1024,
    private readonly onVerified: (file: FileRow) => void = () => {},
  ) {}

  /** The text of `file` (at root-relative `path`) if it is still that version, else null (changed, gone, refused). */
  read(path: string, file: FileRow): Source | null {
    let opened: ReturnType<RootReader["openSync"]>;
    try {
      // Only the indexed version is wanted, so nothing longer is read: a file that grew is stale as it is.
      opened = this.reader.openSync(path, { maxBytes: file.size });
    } catch {
      // Refused, grown or gone: stale, so the plugin re-indexes it (and the indexer says why it was dropped).
      return null;
    }
    try {
      return this.readOpened(path, file, opened);
    } catch {
      return null;
    } finally {
      opened.close();
    }
  }

  private readOpened(path: string, file: FileRow, opened: ReturnType<RootReader["openSync"]>): Source | null {
    const { stats } = opened;
    const trusted = stats.size === file.size && stats.mtimeMs === file.mtimeMs && !racy(file);
    const cached = this.cache.get(path);
    if (
      cached !== undefined &&
      cached.hash === file.hash &&
      cached.size === stats.size &&
      cached.mtimeMs === stats.mtimeMs
    ) {
      if (trusted || !racy(file)) {
        this.cache.delete(path); // re-inserted: most recently used last
        this.cache.set(path, cached);
        return cached;
      }
    }
    const bytes = opened.read();
    if (!trusted) {
      if (hashBytes(bytes) !== file.hash) return null;
      this.onVerified(file);
    }
    const text = bytes.toString("utf8");
    const source: Cached = {
      text,
      starts: lineStarts(text),
      hash: file.hash,
      size: stats.size,
      mtimeMs: stats.mtimeMs,
    };
    this.remember(path, source);
    return source;
  }

  private remember(path: string, source: Cached): void {
    const previous = this.cache.get(path);
    if (previous !== undefined) {
      this.chars -= previous.text.length;
      this.cache.delete(path);
    }
    if (source.text.length > this.maxChars) return;
    this.cache.set(path, source);
    this.chars += source.text.length;
    for (const [key, old] of this.cache) {
      if (this.chars <= this.maxChars) break;
      this.cache.delete(key);
      this.chars -= old.text.length;
    }
  }
}
