/**
 * Plugins: the part a provider author writes. A plugin turns a query into
 * candidates; the framework turns candidates into honest frames.
 */
import { createRequire } from "node:module";
import semver from "semver";
import type { LineRange } from "../pack/lines.js";
import { type ContextQuery, ContextQuerySchema, FRAME_KINDS, type FrameKind } from "../wire/schemas.js";
import { ERROR_CODES, OcpError } from "./errors.js";
import type { Logger } from "./logger.js";

/** This framework's version: plugins state the range of it they need. */
export const CORE_VERSION: string = (createRequire(import.meta.url)("../../package.json") as { version: string })
  .version;

export type { LineRange };

/** One provenance entry as a plugin states it; the framework completes `by` (and the first entry's digest and range). */
export interface CandidateProvenance {
  type?: string;
  uri?: string;
  range?: string;
  digest?: string;
  method?: string;
  by?: string;
}

/**
 * What a plugin returns: content and what is known of it. Never a token cost —
 * the framework counts shipped content itself.
 */
export interface Candidate {
  /** The text a host would put in its prompt (untrusted data). */
  content: string;
  /** Relevance: in [0, 1] for `scores: "unit"` plugins, any non-negative number for `"unbounded"`. */
  relevance: number;
  /** Stable id within the plugin; default derived from uri + range or the content digest. */
  id?: string;
  /** Frame kind; default the plugin's first kind. */
  kind?: FrameKind;
  /** Human label; default derived from the path and range. */
  title?: string;
  /** Citation such as "src/config.ts L42-44"; default derived from the path and range. */
  citationLabel?: string;
  /** Where the content lives (`file:///abs/path.ts`, `https://…`, `fact://…`). */
  uri?: string;
  /** Path shown to people (relative to the root); default derived from a file uri. */
  path?: string;
  /** Lines of the source the content holds; cut frames get the range they keep. */
  range?: LineRange;
  /**
   * Larger views of the same source (the enclosing definition, section, the whole file when
   * small), smallest first, each holding the lines of the one before and of `range`. At most
   * one view of a candidate ships — itself, one of these, or a one-line pointer — deeper
   * where its score stands above the rest (docs/packing.md). Needs `uri` and `range`.
   */
  resolutions?: Resolution[];
  /** The line of `range` a one-line pointer to this candidate shows (the match); default its first non-blank line. */
  pointerLine?: number;
  /** Provenance; the first entry describes the content itself. Default one entry from uri/range. */
  provenance?: CandidateProvenance[];
  validFrom?: string | Date;
  validTo?: string | Date;
  recordedAt?: string | Date;
  /** Graph edges, each with a human display name. */
  relations?: { rel: string; targetUri: string; displayName?: string }[];
  embedding?: { fingerprint: string; vector?: number[] };
}

/**
 * A larger view of a candidate's source: other lines of the same `uri`, holding the
 * candidate's. Fields it leaves out are the candidate's (a citation gets this range).
 */
export interface Resolution {
  /** The exact text of `range`, terminators kept, as `sliceLines` gives it. */
  content: string;
  /** Lines of the candidate's `uri`; must hold the candidate's range and the previous view's. */
  range: LineRange;
  /** This view's relevance as a frame, on the plugin's scale; default the candidate's. It becomes the frame's score. */
  relevance?: number;
  /** Stable id within the plugin; default derived from the uri and this range. */
  id?: string;
  /** Human label; default the candidate's. */
  title?: string;
  /** Citation; default the candidate's with this range ("src/a.ts L10-80"). */
  citationLabel?: string;
}

/**
 * What search() may return: candidates, optionally with how many more matches it left
 * out, or why it could not search everything it serves.
 */
export type SearchOutput =
  | Candidate[]
  | {
      candidates: Candidate[];
      /** How many further matches the plugin knows of but did not return (a match cap). */
      omitted?: number;
      /**
       * Set when the plugin could not search all it serves (an index still being built):
       * one sentence saying so, for the people and agents reading the answer. The result
       * is then `truncated` however little it ships, and in-process callers get the
       * sentence (`QueryOptions.incomplete`): the wire has no field for it.
       */
      incomplete?: string;
    };

/** Given to setup(). */
export interface SetupContext {
  /** Aborted when the provider shuts down or setup exceeds its bound. */
  signal: AbortSignal;
  /** stderr logger, prefixed with the provider and plugin names. */
  log: Logger;
}

/** Given to search(). */
export interface SearchContext {
  /**
   * Aborted at the plugin's timeout, when the host goes away, or at shutdown. Stop work
   * when it fires. It can only fire while the event loop runs: code that never awaits
   * never sees it (see {@link checkpoint}).
   */
  signal: AbortSignal;
  /** Epoch milliseconds by which the plugin must answer. */
  deadline: number;
  /** stderr logger, prefixed with the provider and plugin names. */
  log: Logger;
  /**
   * For a search that computes for long, in its loops: `await ctx.checkpoint()`. Once the
   * search has held the thread for about 10 ms, it lets the provider's other work run
   * (other queries, `/healthz`, timers); it rejects once the search is stopped (its time
   * limit passed, the host went away, the provider is closing), so the loop ends there.
   * Otherwise it settles at once. In-process code cannot be pre-empted: without such a
   * point, a search holds every request of the provider until it returns.
   */
  checkpoint(): Promise<void>;
}

/**
 * A query field beyond the protocol's that a plugin reads (an extension such as the fact
 * store's `as_known_at`). Declared so that bridges and tools can offer it: the framework
 * passes such fields to plugins whether declared or not, and never checks their values.
 */
export interface QueryExtension {
  /** The JSON type of the value. */
  type: "string" | "number" | "integer" | "boolean";
  /** What the field means, written for the people and agents who fill it in. */
  description: string;
}

/** How a plugin's relevance numbers map into a frame's score in [0, 1]. */
export type ScoreScale = "unit" | "unbounded";

/** The definition given to {@link definePlugin}. */
export interface PluginDefinition {
  /** Unique within a provider; names the plugin in logs, ids and provenance `method`. */
  name: string;
  /** The frame kinds this plugin can return. */
  kinds: readonly FrameKind[];
  /** The plugin's own version, for diagnostics. */
  version?: string;
  /** Range of ocp-provider versions the plugin works with (semver), e.g. "^0.1". */
  core?: string;
  /**
   * `unit` (default): relevance is already in [0, 1]; above 1 is clamped with a warning.
   * `unbounded`: any non-negative number (BM25, hit counts), mapped by r / (1 + r).
   */
  scores?: ScoreScale;
  /** Bound on one search() in milliseconds; default the provider's `pluginTimeoutMs`. */
  timeoutMs?: number;
  /** Query filters the plugin understands (advertised in capabilities). */
  filters?: readonly string[];
  /** Query fields beyond the protocol's that search() reads, by wire name (`as_known_at`). */
  queryExtensions?: Readonly<Record<string, QueryExtension>>;
  /** True if candidates carry relations (advertised as `capabilities.graph`). */
  graph?: boolean;
  /**
   * True if the plugin sends anything off this machine (a remote search API, a cloud
   * embedding). A provider with such a plugin must declare `dataFlow.egress: true`.
   */
  egress?: boolean;
  /** One-time preparation, bounded by the provider's `setupTimeoutMs`; queries wait for it. */
  setup?(ctx: SetupContext): void | Promise<void>;
  /**
   * The search itself. `query` is checked and normalised (`null` read as absent, lists
   * defaulted); fields the host sent beyond the protocol's — an extension such as
   * `as_known_at` — are passed along untouched for plugins that understand them.
   */
  search(query: ContextQuery, ctx: SearchContext): SearchOutput | Promise<SearchOutput>;
  /** Releases resources at shutdown. */
  close?(): void | Promise<void>;
}

const PLUGIN_BRAND: unique symbol = Symbol.for("ocp-provider.plugin");

/** A checked plugin, ready for defineProvider(). */
export type Plugin = Readonly<PluginDefinition> & { readonly [PLUGIN_BRAND]: true };

/** True if `value` came from {@link definePlugin}. */
export function isPlugin(value: unknown): value is Plugin {
  return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[PLUGIN_BRAND] === true;
}

/**
 * Checks a plugin definition now, so a broken plugin fails at registration with a
 * coded error rather than at its first query.
 */
export function definePlugin(definition: PluginDefinition): Plugin {
  const fail = (message: string) =>
    new OcpError(ERROR_CODES.PLUGIN_INVALID, `plugin '${definition?.name}': ${message}`);
  if (typeof definition !== "object" || definition === null) throw fail("definition must be an object");
  if (typeof definition.name !== "string" || !/^[a-z0-9][a-z0-9._-]*$/i.test(definition.name)) {
    throw fail("name must be a non-empty word of letters, digits, '.', '_' or '-'");
  }
  if (!Array.isArray(definition.kinds) || definition.kinds.length === 0)
    throw fail("kinds must list at least one frame kind");
  for (const kind of definition.kinds) {
    if (!FRAME_KINDS.includes(kind))
      throw fail(`unknown frame kind '${kind}' (expected one of ${FRAME_KINDS.join(", ")})`);
  }
  if (typeof definition.search !== "function") throw fail("search(query, ctx) must be a function");
  if (definition.scores !== undefined && definition.scores !== "unit" && definition.scores !== "unbounded") {
    throw fail(`scores must be "unit" or "unbounded", not '${definition.scores}'`);
  }
  if (definition.timeoutMs !== undefined && !(definition.timeoutMs > 0))
    throw fail("timeoutMs must be a positive number");
  checkExtensions(definition.queryExtensions, fail);
  if (definition.core !== undefined) {
    if (semver.validRange(definition.core) === null) throw fail(`core '${definition.core}' is not a semver range`);
    if (!semver.satisfies(CORE_VERSION, definition.core, { includePrerelease: true })) {
      throw new OcpError(
        ERROR_CODES.PLUGIN_CORE_RANGE,
        `plugin '${definition.name}' needs ocp-provider ${definition.core}, but this is ${CORE_VERSION}`,
      );
    }
  }
  return Object.freeze({ ...definition, kinds: [...definition.kinds], [PLUGIN_BRAND]: true as const });
}

const QUERY_EXTENSION_TYPES: readonly string[] = ["string", "number", "integer", "boolean"];

/** An extension must be a lower-case wire name the protocol does not already use, with a type and a description. */
function checkExtensions(extensions: PluginDefinition["queryExtensions"], fail: (message: string) => OcpError): void {
  if (extensions === undefined) return;
  if (typeof extensions !== "object" || extensions === null) throw fail("queryExtensions must be an object");
  for (const [name, extension] of Object.entries(extensions)) {
    if (!/^[a-z][a-z0-9_]*$/.test(name)) throw fail(`query extension '${name}' must be a lower-case wire name`);
    if (Object.hasOwn(ContextQuerySchema.shape, name)) {
      throw fail(`query extension '${name}' is a field of the protocol's query already`);
    }
    if (!QUERY_EXTENSION_TYPES.includes(extension?.type)) {
      throw fail(`query extension '${name}' needs a type: one of ${QUERY_EXTENSION_TYPES.join(", ")}`);
    }
    if (typeof extension.description !== "string" || extension.description.trim() === "") {
      throw fail(`query extension '${name}' needs a description`);
    }
  }
}
