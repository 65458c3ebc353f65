import type { TermBag } from "./extract/bag.js";

/**
 * What the index holds: symbols as the extractors see them, and the languages they
 * are read from.
 */

/** The kinds of symbol the extractors report. Language-natural names; no kind is faked across languages. */
export const SYMBOL_KINDS = [
  "function",
  "method",
  "constructor",
  "getter",
  "setter",
  "class",
  "interface",
  "type",
  "enum",
  "enum-member",
  "struct",
  "union",
  "trait",
  "property",
  "variable",
  "constant",
  "namespace",
  "module",
  "macro",
] as const;

/** One of {@link SYMBOL_KINDS}. */
export type SymbolKind = (typeof SYMBOL_KINDS)[number];

/** A definition found in one file. Lines are 1-based and inclusive. */
export interface ExtractedSymbol {
  /** The bare name (`retry`). */
  name: string;
  /** The name with its containers, in the language's own notation (`Config.retry`, `Config::retry`). */
  qualifiedName: string;
  kind: SymbolKind;
  /** The qualified name of the enclosing class, interface, struct, impl target… if any. */
  container?: string;
  /** First line of the declaration, decorators and attributes included. */
  startLine: number;
  /** Last line of the declaration, body included. */
  endLine: number;
  /** First line of the doc comment right above the declaration, when there is one. */
  docStartLine?: number;
  /** The declaration's header on one line (`function retry(attempts: number): Promise<void>`). */
  signature: string;
  /** The doc comment's text, markers stripped, shortened. */
  doc?: string;
  /** Visible outside its module: `export`ed, `pub`, `public`, capitalised (Go), not `_private` (Python). */
  exported: boolean;
}

/** The languages the index reads, and with what. */
export const LANGUAGES = {
  typescript: { method: "ts-morph" },
  tsx: { method: "ts-morph" },
  javascript: { method: "ts-morph" },
  jsx: { method: "ts-morph" },
  python: { method: "tree-sitter" },
  go: { method: "tree-sitter" },
  rust: { method: "tree-sitter" },
  java: { method: "tree-sitter" },
} as const;

/** A language the index reads. */
export type Language = keyof typeof LANGUAGES;

/** How a file's symbols were extracted; written into each frame's provenance `method`. */
export type ExtractionMethod = (typeof LANGUAGES)[Language]["method"];

const EXTENSIONS: ReadonlyMap<string, Language> = new Map([
  [".ts", "typescript"],
  [".mts", "typescript"],
  [".cts", "typescript"],
  [".tsx", "tsx"],
  [".js", "javascript"],
  [".mjs", "javascript"],
  [".cjs", "javascript"],
  [".jsx", "jsx"],
  [".py", "python"],
  [".pyi", "python"],
  [".go", "go"],
  [".rs", "rust"],
  [".java", "java"],
]);

/** The language of a file by its name, or undefined when the index does not read it. */
export function languageOf(path: string): Language | undefined {
  const dot = path.lastIndexOf(".");
  if (dot === -1 || dot < path.lastIndexOf("/")) return undefined;
  return EXTENSIONS.get(path.slice(dot).toLowerCase());
}

/** The file extensions the index reads (`.ts`, `.py`, …). */
export const INDEXED_EXTENSIONS: readonly string[] = [...EXTENSIONS.keys()];

/** What happened when a file was read; only `ok` files have symbols. */
export type FileStatus = "ok" | "binary" | "not-utf8" | "parse-error";

/** The outcome of extracting one file. */
export interface FileExtraction {
  /** The words and identifiers of an `ok` file's text, hashed: what prose goals are ranked by. */
  bag?: TermBag;
  status: FileStatus;
  /** sha256 hex of the file's bytes as read. */
  hash: string;
  /** Lines in the file (the framework's convention: a last line without a terminator counts). */
  lineCount: number;
  symbols: ExtractedSymbol[];
  /** Why the file has no symbols, for the warning on stderr. */
  problem?: string;
}
