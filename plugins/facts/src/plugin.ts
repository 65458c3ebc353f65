/**
 * The OCP plugin: facts as frames of kind `fact`, filtered in both times.
 *
 * - valid time: the query's `as_of`, else now;
 * - system time: the query's `as_known_at` when a host sends one (an extension
 *   field: the core passes fields beyond the protocol's on to plugins), else the
 *   plugin's `asKnownAt` option, else current knowledge.
 *
 * A frame: title "subject · predicate", content the statement, `valid_from`,
 * `valid_to` and `recorded_at` filled, provenance `{ type: "fact", uri:
 * "fact://<store>/<id>", method, by: <author> }` (plus the statement's source,
 * when known), citation "fact 42 (valid 2024-01-01 → 2025-03-01)".
 */
import { createRequire } from "node:module";
import {
  type Candidate,
  type ContextQuery,
  type DataFlow,
  definePlugin,
  defineProvider,
  InvalidQueryError,
  type Logger,
  type Plugin,
  type Provider,
} from "ocp-provider";
import type { Clock } from "./backend.js";
import { FactError } from "./errors.js";
import type { Fact } from "./model.js";
import { type OpenFactStoreOptions, openFactStore } from "./open.js";
import { pgIsLocal } from "./pg-url.js";
import type { FactStore } from "./store.js";
import { formatDay, parseTime, type TimeInput } from "./time.js";

/** This package's version. */
export const VERSION: string = (createRequire(import.meta.url)("../package.json") as { version: string }).version;

/** Options of {@link facts}: where the store is (exactly one of `db`, `pg`, `store`), and how to read it. */
export interface FactsOptions {
  /** A SQLite fact store file. */
  db?: string;
  /** A PostgreSQL URL. */
  pg?: string;
  /** An open store (the plugin does not close it). */
  store?: FactStore;
  /** PostgreSQL schema; default `ocp_facts`. */
  schema?: string;
  /** Plugin name (logs, frame ids); default `facts`. */
  name?: string;
  /** Store name in `fact://` URIs; default the file's base name or the database name. */
  storeName?: string;
  /** Serve what the store knew at this system time (an audit view); default current knowledge. */
  asKnownAt?: TimeInput;
  /** Clock for "now" when a query has no `as_of` (tests pin it); default the wall clock. */
  clock?: Clock;
}

/** A fact's citation: `fact 42 (valid 2024-01-01 → 2025-03-01)`, or `(valid since …)` while it holds. */
export function citationOf(fact: Fact): string {
  const from = formatDay(Date.parse(fact.validFrom));
  if (fact.validTo === null) return `fact ${fact.id} (valid since ${from})`;
  return `fact ${fact.id} (valid ${from} → ${formatDay(Date.parse(fact.validTo))})`;
}

/** A version as a candidate frame. */
export function toCandidate(store: FactStore, fact: Fact, relevance: number): Candidate {
  const uri = store.uri(fact.id);
  return {
    id: `${fact.id}@v${fact.version}`,
    kind: "fact",
    title: `${fact.subject} · ${fact.predicate}`,
    content: fact.statement,
    relevance,
    uri,
    citationLabel: citationOf(fact),
    validFrom: fact.validFrom,
    validTo: fact.validTo ?? undefined,
    recordedAt: fact.recordedAt,
    provenance: [
      { type: "fact", uri, method: fact.method ?? undefined, by: fact.author ?? undefined },
      ...(fact.source !== null ? [{ type: "source", uri: fact.source }] : []),
    ],
  };
}

/** The system time a query asks for: its own `as_known_at` if present, else `fallback`. */
function knownAtOf(query: ContextQuery, fallback: TimeInput | undefined): TimeInput | undefined {
  const asked = (query as ContextQuery & { as_known_at?: unknown }).as_known_at;
  if (asked === undefined || asked === null) return fallback;
  return typeof asked === "string" ? asked : String(asked);
}

/**
 * A time the query gives: a bad one is the host's mistake, an `InvalidQueryError` (HTTP
 * 400), not the plugin failing. The message names the field; the value is shown escaped.
 */
function queryTime(value: TimeInput | null | undefined, field: string): Date | undefined {
  if (value === undefined || value === null) return undefined;
  try {
    return new Date(parseTime(value, field));
  } catch (error) {
    throw error instanceof FactError ? new InvalidQueryError(error.message) : error;
  }
}

/** How many facts to look for: enough for the packer to choose from, never unbounded. */
const wanted = (maxFrames: number) => Math.min(64, Math.max(8, 2 * maxFrames));

/** The fact-store plugin: kind `fact`, text match filtered by valid time and system time. */
export function facts(options: FactsOptions): Plugin {
  let store: FactStore | undefined = options.store;
  const owned = options.store === undefined;
  if (options.asKnownAt !== undefined) parseTime(options.asKnownAt, "asKnownAt"); // a bad option fails now, not per query
  return definePlugin({
    name: options.name ?? "facts",
    version: VERSION,
    kinds: ["fact"],
    core: "^0.1",
    scores: "unit",
    queryExtensions: {
      as_known_at: {
        type: "string",
        description:
          "System time (RFC 3339 or a date): answer from what the store knew then, not from current knowledge.",
      },
    },
    async setup() {
      store ??= await openFactStore({
        db: options.db,
        pg: options.pg,
        schema: options.schema,
        name: options.storeName,
        clock: options.clock,
        create: false,
      } satisfies OpenFactStoreOptions);
    },
    async search(query) {
      if (store === undefined) throw new Error("the fact store is not open");
      if (query.max_frames === 0) return [];
      const hits = await store.search({
        text: query.query_text?.trim() ? query.query_text : query.goal,
        validAt: queryTime(query.as_of, "as_of"),
        knownAt: queryTime(knownAtOf(query, options.asKnownAt), "as_known_at"),
        limit: wanted(query.max_frames),
      });
      return hits.map(({ fact, relevance }) => toCandidate(store as FactStore, fact, relevance));
    },
    async close() {
      if (owned) await store?.close();
    },
  });
}

/**
 * The honest data flow of a fact provider: it reads, it never writes, and it
 * has egress when its PostgreSQL server is not on this machine (the query's
 * words travel to that server).
 */
export function factsDataFlow(options: FactsOptions): DataFlow {
  const local =
    options.store !== undefined ? options.store.backend.local : options.pg !== undefined ? pgIsLocal(options.pg) : true;
  return { reads: true, writes: false, egress: !local };
}

/** Options of {@link createFactsProvider}. */
export interface FactsProviderOptions extends FactsOptions {
  /** Provider name shown to people; default `facts`. */
  providerName?: string;
  /** Where diagnostics go; default stderr. */
  logger?: Logger;
}

/** A ready provider around the fact plugin, with its data flow declared honestly: what `ocp-facts serve` runs. */
export function createFactsProvider(options: FactsProviderOptions): Provider {
  return defineProvider({
    name: options.providerName ?? "facts",
    version: VERSION,
    dataFlow: factsDataFlow(options),
    plugins: [facts(options)],
    logger: options.logger,
  });
}
