/**
 * defineProvider(): a provider made of plugins. It owns the handshake, fans each
 * query out, checks and costs what comes back, packs it under the budget and
 * answers with frames that are valid by construction.
 */
import { resolve } from "node:path";
import { type PackOptions, packFrames } from "../pack/pack.js";
import { createTokenCounter, TOKENIZERS, type TokenCounter, type TokenizerName } from "../tokens/counter.js";
import { describeIssues } from "../wire/codec.js";
import { readQueryFast } from "../wire/fast-query.js";
import {
  type Capabilities,
  type ContextQuery,
  type ContextQueryResult,
  ContextQuerySchema,
  type DataFlow,
  type Envelope,
  FRAME_KINDS,
  type FrameKind,
  type ProviderInfo,
} from "../wire/schemas.js";
import { describeError, ERROR_CODES, InvalidQueryError, OcpError, UserError } from "./errors.js";
import { fanOut, type PluginOutcome } from "./fan-out.js";
import { buildFrame, frameContext } from "./frames.js";
import { createLogger, type Logger } from "./logger.js";
import { isPlugin, type Plugin, type QueryExtension } from "./plugin.js";
import type { QueryOptions, QueryTrace } from "./query-options.js";
import { createSession, registerAnswer, type Session } from "./session.js";

export type { QueryOptions, QueryTrace } from "./query-options.js";

/** The configuration of {@link defineProvider}. */
export interface ProviderOptions {
  /** Shown to people at consent time; non-empty. */
  name: string;
  /** The provider's own version; non-empty. */
  version: string;
  /** What the provider does with data. Declare `egress: true` if anything leaves the machine (C3). */
  dataFlow: DataFlow;
  /** The plugins that search; at least one. */
  plugins: readonly Plugin[];
  /** The tokenizer token costs reproduce; default `o200k_base`. */
  tokenizer?: TokenizerName;
  /** Bound on each plugin's search(), in milliseconds; default 10 000. */
  pluginTimeoutMs?: number;
  /** Bound on each plugin's setup(), in milliseconds; default 30 000. */
  setupTimeoutMs?: number;
  /** Directory file paths are shown relative to; default the working directory. */
  root?: string;
  /** Advertised `capabilities.embeddings_fingerprint`. */
  embeddingsFingerprint?: string;
  /** Where diagnostics go; default stderr. */
  logger?: Logger;
}

/** A provider: query it in-process, or serve it with a transport. */
export interface Provider {
  /** The identity written into `handshake_ack`. */
  readonly info: ProviderInfo;
  /** The capabilities written into `handshake_ack`. */
  readonly capabilities: Capabilities;
  /** The counter behind every `token_cost`. */
  readonly counter: TokenCounter;
  /** The query fields beyond the protocol's that its plugins declare they read (`as_known_at`). */
  readonly queryExtensions: Readonly<Record<string, QueryExtension>>;
  /** The absolute directory file paths are shown relative to; nothing outside it is meant to be served. */
  readonly root: string;
  /** The provider's stderr logger. */
  readonly log: Logger;
  /** Runs plugin setups once (bounded); queries wait for it. Transports start it after the handshake. */
  start(): Promise<void>;
  /** Answers one query (any JSON value; it is read tolerantly). Throws {@link UserError} for a bad query. */
  query(query: unknown, options?: QueryOptions): Promise<ContextQueryResult>;
  /** A new host session: its own handshake state. */
  openSession(): Session;
  /** Handles one envelope in the default session; resolves to the reply, or undefined for `shutdown`. */
  handle(envelope: unknown, options?: QueryOptions): Promise<Envelope | undefined>;
  /** Stops setups and closes every plugin. */
  close(): Promise<void>;
}

const PROVIDER_BRAND: unique symbol = Symbol.for("ocp-provider.provider");

/** True if `value` came from {@link defineProvider}. */
export function isProvider(value: unknown): value is Provider {
  return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[PROVIDER_BRAND] === true;
}

function checkOptions(options: ProviderOptions): void {
  const fail = (message: string) => new OcpError(ERROR_CODES.PROVIDER_CONFIG, `defineProvider: ${message}`);
  if (typeof options !== "object" || options === null) throw fail("expected an options object");
  if (typeof options.name !== "string" || options.name.trim() === "")
    throw fail("name must be a non-empty string (H2)");
  if (typeof options.version !== "string" || options.version.trim() === "")
    throw fail("version must be a non-empty string (H2)");
  const flow = options.dataFlow as Partial<DataFlow> | undefined;
  if (typeof flow?.reads !== "boolean" || typeof flow.writes !== "boolean" || typeof flow.egress !== "boolean") {
    throw fail("dataFlow must declare reads, writes and egress as booleans");
  }
  if (!Array.isArray(options.plugins) || options.plugins.length === 0)
    throw fail("plugins must list at least one plugin");
  const names = new Set<string>();
  for (const plugin of options.plugins) {
    if (!isPlugin(plugin)) throw fail("every plugin must come from definePlugin()");
    if (names.has(plugin.name)) {
      throw new OcpError(ERROR_CODES.PLUGIN_DUPLICATE, `defineProvider: two plugins are named '${plugin.name}'`);
    }
    names.add(plugin.name);
  }
  const leaky = options.plugins.find((plugin) => plugin.egress === true);
  if (leaky !== undefined && !flow.egress) {
    // Consent depends on this flag (C1–C3): a plugin's own egress must never be hidden behind it.
    throw fail(`plugin '${leaky.name}' sends data off this machine: declare dataFlow: { ..., egress: true }`);
  }
  if (options.tokenizer !== undefined && !TOKENIZERS.includes(options.tokenizer)) {
    throw fail(`tokenizer must be one of ${TOKENIZERS.join(", ")}`);
  }
}

/** Defines a provider. Checks the configuration now and throws an {@link OcpError} if it is unusable. */
export function defineProvider(options: ProviderOptions): Provider {
  checkOptions(options);
  const plugins = [...options.plugins];
  const log = options.logger ?? createLogger({ name: options.name });
  const pluginLog = new Map(plugins.map((plugin) => [plugin, prefixed(log, plugin.name)]));
  const counter = createTokenCounter({ tokenizer: options.tokenizer });
  const queryExtensions = mergeExtensions(
    plugins,
    (message) => new OcpError(ERROR_CODES.PROVIDER_CONFIG, `defineProvider: ${message}`),
  );
  const root = resolve(options.root ?? process.cwd());
  const frames = frameContext(options.name, root);
  const pluginTimeoutMs = options.pluginTimeoutMs ?? 10_000;
  const setupTimeoutMs = options.setupTimeoutMs ?? 30_000;
  const lifetime = new AbortController();
  const disabled = new Set<Plugin>();
  let started: Promise<void> | undefined;
  /** Set once start() has finished: plugin setup is over, every query may go straight on. */
  let ready = false;

  const kinds = FRAME_KINDS.filter((kind) => plugins.some((plugin) => plugin.kinds.includes(kind)));
  const info: ProviderInfo = { name: options.name, version: options.version, data_flow: { ...options.dataFlow } };
  const capabilities: Capabilities = {
    query: { kinds: [...kinds], filters: [...new Set(plugins.flatMap((plugin) => plugin.filters ?? []))] },
    upsert: false,
    graph: plugins.some((plugin) => plugin.graph === true),
    embeddings_fingerprint: options.embeddingsFingerprint ?? null,
    subscribe: false,
  };

  async function setupOne(plugin: Plugin): Promise<void> {
    if (plugin.setup === undefined) return;
    const plog = pluginLog.get(plugin) as Logger;
    const signal = AbortSignal.any([lifetime.signal, AbortSignal.timeout(setupTimeoutMs)]);
    try {
      await Promise.race([
        plugin.setup({ signal, log: plog }),
        new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason), { once: true })),
      ]);
    } catch (error) {
      disabled.add(plugin);
      plog.error(`${ERROR_CODES.PLUGIN_SETUP}: setup failed, plugin disabled: ${describeError(error)}`);
    }
  }

  function start(): Promise<void> {
    started ??= (async () => {
      // Yield first: a transport starts us right after writing the handshake_ack,
      // and loading tokenizer tables must not delay that write.
      await new Promise((done) => setImmediate(done));
      counter.preload();
      await Promise.all(plugins.map(setupOne));
      ready = true;
    })();
    return started;
  }

  const logOf = (plugin: Plugin) => pluginLog.get(plugin) as Logger;
  const logByName = (name: string) => logOf(plugins.find((plugin) => plugin.name === name) as Plugin);

  /**
   * The plugins a query reaches: set up, and serving one of the wanted kinds (any kind
   * when none is named). Throws a UserError when the only ones that would have served
   * it failed to set up.
   */
  function activePlugins(wantedKinds: readonly FrameKind[]): readonly Plugin[] {
    // Every plugin serves some kind of the provider's own list: no filtering to do.
    if (wantedKinds.length === 0 && disabled.size === 0) return plugins;
    const wanted = wantedKinds.length > 0 ? wantedKinds : kinds;
    const serves = (plugin: Plugin) => plugin.kinds.some((kind) => wanted.includes(kind));
    const active = plugins.filter((plugin) => !disabled.has(plugin) && serves(plugin));
    if (active.length === 0 && plugins.some(serves)) {
      throw new UserError(
        "no plugin is available for this query: every matching plugin failed to set up (see the provider's stderr)",
      );
    }
    return active;
  }

  async function query(raw: unknown, queryOptions: QueryOptions = {}): Promise<ContextQueryResult> {
    const fast = readQueryFast(raw);
    if (fast !== undefined) return answer(fast, queryOptions, raw);
    const parsed = ContextQuerySchema.safeParse(raw);
    if (!parsed.success) throw new InvalidQueryError(describeIssues(parsed.error, raw));
    return answer(parsed.data, queryOptions, raw);
  }

  /**
   * Answers a checked query: synchronously when setup is over and every plugin asked
   * answered synchronously (no promise, no microtask hop), else as a promise. Throws
   * (or rejects with) a UserError when no plugin could answer.
   */
  function answer(
    request: ContextQuery,
    queryOptions: QueryOptions = {},
    raw?: unknown,
  ): ContextQueryResult | Promise<ContextQueryResult> {
    if (!ready) return start().then(() => answer(request, queryOptions, raw));
    const active = activePlugins(request.kinds);
    // Plugins see the fields the host sent beyond the protocol's (an extension such as
    // as_known_at) under the checked ones: the framework itself ignores them.
    // Plugins may hold the very query object: what the packer needs is read before they run.
    const limits = { maxTokens: request.max_tokens, maxFrames: request.max_frames, kinds: request.kinds, counter };
    const { trace } = queryOptions;
    const began = trace === undefined ? 0 : performance.now();
    const fanned = fanOut(withExtensions(request, raw), {
      plugins: active,
      timeoutMs: pluginTimeoutMs,
      signals: [queryOptions.signal, lifetime.signal],
      log: logOf,
    });
    if (trace === undefined) {
      return Array.isArray(fanned) ? result(fanned, limits) : fanned.then((outcomes) => result(outcomes, limits));
    }
    const traced = (outcomes: readonly PluginOutcome[]) => {
      trace.searchMs = performance.now() - began;
      return result(outcomes, limits, trace);
    };
    return Array.isArray(fanned) ? traced(fanned) : fanned.then(traced);
  }

  /** Packs what the plugins found into the query's result. */
  function result(outcomes: readonly PluginOutcome[], limits: PackOptions, trace?: QueryTrace): ContextQueryResult {
    if (outcomes.length > 0 && outcomes.every((outcome) => outcome.status !== "ok")) {
      const messages = outcomes.flatMap((outcome) => (outcome.userMessage !== undefined ? [outcome.userMessage] : []));
      const timedOut = outcomes.every((outcome) => outcome.status === "timeout");
      // The caller says it (the host gets it as an error envelope, ocp query prints it): not logged here too.
      throw new UserError(
        messages.length > 0
          ? messages.join("; ")
          : timedOut
            ? "search timed out"
            : "search failed in every plugin (details are on the provider's stderr)",
      );
    }
    // The others answered, so the query succeeds: a failed plugin's own message shows only here.
    for (const outcome of outcomes) {
      if (outcome.userMessage !== undefined) logByName(outcome.plugin).warn(outcome.userMessage);
    }
    const packing = trace === undefined ? 0 : performance.now();
    const packed = packFrames(
      outcomes.length === 1
        ? (outcomes[0] as PluginOutcome).candidates
        : outcomes.flatMap((outcome) => outcome.candidates),
      limits,
    );
    const framing = trace === undefined ? 0 : performance.now();
    if (trace !== undefined) trace.packMs = framing - packing;
    let omitted = 0;
    for (const outcome of outcomes) omitted += outcome.omitted;
    const truncated = packed.truncated || omitted > 0;
    const built = packed.frames.map((frame) => buildFrame(frame, frames));
    if (trace !== undefined) trace.framesMs = performance.now() - framing;
    return {
      frames: built,
      truncated,
      dropped_estimate: truncated ? Math.min(packed.dropped + omitted, 4_294_967_295) : undefined,
    };
  }

  let defaultSession: Session | undefined;
  const provider: Provider & { [PROVIDER_BRAND]: true } = {
    [PROVIDER_BRAND]: true,
    info,
    capabilities,
    counter,
    queryExtensions,
    root,
    log,
    start,
    query,
    openSession: () => createSession(provider),
    handle: (envelope, handleOptions) => {
      defaultSession ??= createSession(provider);
      return defaultSession.handle(envelope, handleOptions);
    },
    async close() {
      lifetime.abort(new Error("provider closed"));
      await Promise.all(
        plugins.map(async (plugin) => {
          try {
            await plugin.close?.();
          } catch (error) {
            pluginLog.get(plugin)?.warn(`close failed: ${describeError(error)}`);
          }
        }),
      );
    },
  };
  registerAnswer(provider, answer);
  return provider;
}

/** The plugins' query extensions in one map; two plugins may share one only if they agree on its type. */
function mergeExtensions(
  plugins: readonly Plugin[],
  fail: (message: string) => OcpError,
): Readonly<Record<string, QueryExtension>> {
  const merged: Record<string, QueryExtension> = {};
  const owner = new Map<string, string>();
  for (const plugin of plugins) {
    for (const [name, extension] of Object.entries(plugin.queryExtensions ?? {})) {
      const earlier = merged[name];
      if (earlier !== undefined && earlier.type !== extension.type) {
        throw fail(
          `plugins '${owner.get(name)}' and '${plugin.name}' declare query extension '${name}' with different types`,
        );
      }
      if (earlier === undefined) {
        merged[name] = { type: extension.type, description: extension.description };
        owner.set(name, plugin.name);
      }
    }
  }
  return Object.freeze(merged);
}

const QUERY_FIELDS: ReadonlySet<string> = new Set(Object.keys(ContextQuerySchema.shape));

/**
 * The checked query plus any fields the host sent beyond the protocol's. Copies only
 * when there are such fields: an object spread per query cost about a microsecond.
 */
function withExtensions(request: ContextQuery, raw: unknown): ContextQuery {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return request;
  for (const key in raw) if (!QUERY_FIELDS.has(key)) return { ...raw, ...request };
  return request;
}

/** A logger whose lines name the plugin too. */
function prefixed(log: Logger, name: string): Logger {
  return {
    error: (message) => log.error(`plugin '${name}': ${message}`),
    warn: (message) => log.warn(`plugin '${name}': ${message}`),
    info: (message) => log.info(`plugin '${name}': ${message}`),
    debug: (message) => log.debug(`plugin '${name}': ${message}`),
  };
}
