/**
 * The options one query travels with, on every door into the answer pipeline (the
 * in-process `query()`, a session's envelopes): a module of their own, so the
 * provider and the session both read them without importing each other.
 */

import type { TokenizerName } from "../tokens/registry.js";

/** Options of a single query. */
export interface QueryOptions {
  /**
   * The tokenizer this answer's `token_cost`s are counted in, and `max_tokens` budgets:
   * one the provider offers (`provider.tokenizers`); default the provider's own.
   */
  tokenizer?: TokenizerName;
  /** Aborts the plugins' work (the host went away, the provider is shutting down). */
  signal?: AbortSignal;
  /** Filled with where the query's time went (`ocp bench` reads it). */
  trace?: QueryTrace;
  /**
   * Filled with why the answer may be missing matches: the sentence of each plugin that
   * could not search all it serves (its index still being built), as `plugin: sentence`.
   * The wire says only `truncated`; the MCP bridge shows these to the agent.
   */
  incomplete?: string[];
}

/** Where one query's time went, in milliseconds (`performance.now()` differences). */
export interface QueryTrace {
  /** The plugins' searches, with the checks of what they returned. */
  searchMs?: number;
  /** Choosing what ships under the budget: exact token counting included. */
  packMs?: number;
  /** Making frames of what ships: ids, digests, citations. */
  framesMs?: number;
}
