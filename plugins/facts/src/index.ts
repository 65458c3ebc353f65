/**
 * ocp-plugin-facts: a bi-temporal fact store (SQLite embedded, PostgreSQL at
 * scale) and the OCP plugin that serves it. What was true when (valid time), and
 * what we knew when (system time).
 */

export type { Clock, FactBackend } from "./backend.js";
export { FACT_ERRORS, FactError, type FactErrorCode } from "./errors.js";
export {
  type BatchProgress,
  checkJsonl,
  type ImportClaim,
  type ImportJsonlOptions,
  type ImportSummary,
  importJsonl,
} from "./import-file.js";
export type {
  AssertInput,
  CorrectInput,
  EraseInput,
  Erasure,
  Fact,
  FactOp,
  RetractInput,
  WriteResult,
} from "./model.js";
export { type OpenFactStoreOptions, openFactStore } from "./open.js";
export type { PgConnection, PgPool } from "./pg-backend.js";
export { pgIsLocal } from "./pg-url.js";
export {
  citationOf,
  createFactsProvider,
  type FactsOptions,
  type FactsProviderOptions,
  facts,
  factsDataFlow,
  VERSION,
} from "./plugin.js";
export { type FactRecord, type ParsedRecord, parseRecord, toRecord } from "./records.js";
export { queryTerms } from "./search.js";
export type { AsOf, FactHit, ImportBatchResult, ImportClash, ListOptions, SearchOptions } from "./store.js";
export { FactStore } from "./store.js";
export { formatTime, parseTime, type TimeInput } from "./time.js";
