/**
 * One file in, its symbols out: binary and non-UTF-8 files are recognised and
 * skipped, the language is picked by extension, and a parser failure becomes a
 * `parse-error` status with the reason — never an exception.
 *
 * The parsers load lazily, so a tree without TypeScript never loads the TypeScript
 * compiler, and one without Python never loads that grammar.
 */
import { isUtf8 } from "node:buffer";
import { createHash } from "node:crypto";
import { type FileExtraction, type Language, languageOf } from "../model.js";
import { termBag } from "./bag.js";
import type { TreeSitterSpec } from "./tree-sitter.js";

/** Bytes examined for a NUL when deciding a file is binary (git's heuristic). */
const BINARY_PROBE_BYTES = 8000;

/** Lines under the framework's convention: `"a\nb"` and `"a\nb\n"` both have two. (Not imported: workers stay light.) */
export function countLines(text: string | Uint8Array): number {
  const bytes =
    typeof text === "string" ? Buffer.from(text, "utf8") : Buffer.from(text.buffer, text.byteOffset, text.byteLength);
  if (bytes.length === 0) return 0;
  // On the bytes (a UTF-8 newline is one byte, never inside a longer character): a native search.
  let lines = 0;
  for (let at = bytes.indexOf(10); at !== -1; at = bytes.indexOf(10, at + 1)) lines++;
  return bytes[bytes.length - 1] === 10 ? lines : lines + 1;
}

/** True when the first bytes hold a NUL: text files never do. */
export function looksBinary(bytes: Uint8Array): boolean {
  return bytes.subarray(0, BINARY_PROBE_BYTES).includes(0);
}

/** `sha256` hex of a file's bytes: what the index compares to notice a change. */
export function hashBytes(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

async function treeSitterSpec(language: Language): Promise<TreeSitterSpec | undefined> {
  switch (language) {
    case "python":
      return (await import("./languages/python.js")).python;
    case "go":
      return (await import("./languages/go.js")).go;
    case "rust":
      return (await import("./languages/rust.js")).rust;
    case "java":
      return (await import("./languages/java.js")).java;
    default:
      return undefined;
  }
}

/** Extracts the symbols of one file's bytes; `path` picks the language. Never throws for bad content. */
export async function extractFile(
  bytes: Uint8Array,
  path: string,
  language = languageOf(path),
): Promise<FileExtraction> {
  const hash = hashBytes(bytes);
  if (looksBinary(bytes)) return { status: "binary", hash, lineCount: 0, symbols: [], problem: "binary file" };
  if (!isUtf8(bytes)) {
    return { status: "not-utf8", hash, lineCount: 0, symbols: [], problem: "not valid UTF-8" };
  }
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8");
  const lineCount = countLines(bytes);
  if (language === undefined) return { status: "ok", hash, lineCount, symbols: [], bag: termBag(text) };
  try {
    const spec = await treeSitterSpec(language);
    const symbols =
      spec !== undefined
        ? await (await import("./tree-sitter.js")).extractWithTreeSitter(text, spec)
        : (await import("./typescript.js")).extractTypeScript(text, path, language);
    return { status: "ok", hash, lineCount, symbols, bag: termBag(text) };
  } catch (error) {
    const reason = error instanceof Error ? error.message || error.name : String(error);
    return { status: "parse-error", hash, lineCount, symbols: [], problem: `could not be parsed: ${reason}` };
  }
}
