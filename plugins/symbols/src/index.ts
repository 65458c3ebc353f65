/**
 * ocp-plugin-symbols: a code symbol index for OCP hosts — where a name is defined,
 * what it looks like, what belongs to it. TypeScript/JavaScript exactly (the
 * TypeScript compiler that ts-morph bundles), Python, Go, Rust and Java with
 * tree-sitter; persisted in SQLite and kept fresh as files change.
 *
 *     import { symbols } from "ocp-plugin-symbols";
 *     defineProvider({ ..., plugins: [symbols({ root: "." })] });
 *
 * Also: `symbolsProvider()` (what the `ocp-symbols` command serves), `extractFile()`
 * (one file's symbols) and the ranking's parts, for tests and tools.
 */

export { extractFile } from "./extract/extract.js";
export { Indexer, type IndexerOptions, type PassStats } from "./index/indexer.js";
export {
  type ExtractedSymbol,
  type FileExtraction,
  INDEXED_EXTENSIONS,
  type Language,
  languageOf,
  SYMBOL_KINDS,
  type SymbolKind,
} from "./model.js";
export { DEFAULTS, defaultWorkers, type ResolvedOptions, resolveOptions, type SymbolsOptions } from "./options.js";
export { describePass, openIndex, PACKAGE_VERSION, searchText, symbols } from "./plugin.js";
export { SYMBOLS_SCORE_STEP, type SymbolsProviderOptions, symbolsProvider } from "./provider.js";
export { type AnchorHints, findSymbols, NO_ANCHORS } from "./search/find.js";
export { Tier } from "./search/match.js";
export { SCORE_BANDS, SCORE_WEIGHTS, symbolScore } from "./search/rank.js";
export { queryTerms } from "./search/terms.js";
export { DATABASE_FILE, DEFAULT_CACHE_DIR } from "./store/cache-dir.js";
export { CACHE_ERRORS, CacheError, type CacheErrorCode } from "./store/errors.js";
export { RACY_MS, racy, unchanged } from "./store/freshness.js";
export { APPLICATION_ID } from "./store/ownership.js";
export { type FileRow, INDEX_FORMAT, type SymbolRow, SymbolStore } from "./store/store.js";
