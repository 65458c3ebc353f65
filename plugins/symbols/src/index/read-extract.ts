/**
 * The unit of indexing work, the same in a worker thread and in the main thread:
 * read one file, hash it, and extract its symbols unless its bytes are the ones
 * already indexed.
 */
import { readFileSync } from "node:fs";
import { extractFile, hashBytes } from "../extract/extract.js";
import type { FileExtraction } from "../model.js";

/** One file to (re)index. */
export interface ExtractJob {
  /** Absolute path to read. */
  readonly absolute: string;
  /** Root-relative path (picks the language). */
  readonly path: string;
  /** The hash the index holds: when the bytes still hash to it, nothing is parsed. */
  readonly knownHash?: string;
}

/** What became of a job. */
export type ExtractOutcome =
  | { readonly kind: "extracted"; readonly extraction: FileExtraction }
  | { readonly kind: "unchanged"; readonly hash: string }
  | { readonly kind: "unreadable"; readonly reason: string };

/** Reads, hashes and (if changed) extracts one file. Never throws. */
export async function readAndExtract(job: ExtractJob): Promise<ExtractOutcome> {
  let bytes: Buffer;
  try {
    // Synchronous: one small read is cheaper than a round trip through the thread pool.
    bytes = readFileSync(job.absolute);
  } catch (error) {
    return { kind: "unreadable", reason: (error as NodeJS.ErrnoException).code ?? String(error) };
  }
  if (job.knownHash !== undefined) {
    const hash = hashBytes(bytes);
    if (hash === job.knownHash) return { kind: "unchanged", hash };
  }
  return { kind: "extracted", extraction: await extractFile(bytes, job.path) };
}
