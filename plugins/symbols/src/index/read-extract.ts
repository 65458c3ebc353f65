/**
 * The unit of indexing work, the same in a worker thread and in the main thread:
 * read one file, hash it, and extract its symbols unless its bytes are the ones
 * already indexed. The file is read through the framework's root-confined reader, so
 * a file swapped for a symlink (or reached through a linked directory) is refused,
 * never indexed.
 */
import { isFileRefused, RootReader } from "ocp-provider/fs";
import { extractFile, hashBytes } from "../extract/extract.js";
import type { FileExtraction } from "../model.js";

/** One file to (re)index. */
export interface ExtractJob {
  /** The real root the file lies under. */
  readonly root: string;
  /** Root-relative path (what is read, and it picks the language). */
  readonly path: string;
  /** A file larger than this is not read. */
  readonly maxBytes: number;
  /** The hash the index holds: when the bytes still hash to it, nothing is parsed. */
  readonly knownHash?: string;
}

/** What became of a job. */
export type ExtractOutcome =
  | { readonly kind: "extracted"; readonly extraction: FileExtraction }
  | { readonly kind: "unchanged"; readonly hash: string }
  | { readonly kind: "unreadable"; readonly reason: string }
  /** The reader refused the file (a symlink, outside the root, not a regular file): `reason` says why. */
  | { readonly kind: "refused"; readonly reason: string };

/** One reader per root, per thread: a job carries only the root's path across threads. */
const readers = new Map<string, RootReader>();

function readerOf(root: string): RootReader {
  let reader = readers.get(root);
  if (reader === undefined) {
    reader = new RootReader(root);
    readers.set(root, reader);
  }
  return reader;
}

/** Reads, hashes and (if changed) extracts one file. Never throws. */
export async function readAndExtract(job: ExtractJob): Promise<ExtractOutcome> {
  let bytes: Buffer;
  try {
    // Synchronous: one small read is cheaper than a round trip through the thread pool.
    bytes = readerOf(job.root).readFileSync(job.path, { maxBytes: job.maxBytes }).bytes;
  } catch (error) {
    // A file grown past the size bound is left out, as the listing would leave it out: not a refusal to report.
    if (isFileRefused(error) && error.code !== "OCP_ERR_FILE_TOO_LARGE") {
      return { kind: "refused", reason: `${error.code}: ${error.message}` };
    }
    return { kind: "unreadable", reason: (error as NodeJS.ErrnoException).code ?? String(error) };
  }
  if (job.knownHash !== undefined) {
    const hash = hashBytes(bytes);
    if (hash === job.knownHash) return { kind: "unchanged", hash };
  }
  return { kind: "extracted", extraction: await extractFile(bytes, job.path) };
}
