/**
 * defineProvider(): a provider made of plugins. It owns the handshake, fans each
 * query out, checks and costs what comes back, packs it under the budget and
 * answers with frames that are valid by construction.
 */
import { resolve } from "node:path";
import { TOKENIZERS, type TokenCounter, type TokenizerName } from "../tokens/counter.js";
import { TokenizerMissingError } from "../tokens/errors.js";
import { isInstalled, tokenizerSpec } from "../tokens/registry.js";
import type { Capabilities, ContextQueryResult, DataFlow, Envelope, ProviderInfo } from "../wire/schemas.js";
import { answer, readAndAnswer } from "./answer.js";
import { ERROR_CODES, OcpError } from "./errors.js";
import { closeRuntime, preloadWhenIdle, startRuntime } from "./lifecycle.js";
import { createLogger, type Logger } from "./logger.js";
import { isPlugin, type Plugin, type QueryExtension } from "./plugin.js";
import type { QueryOptions } from "./query-options.js";
import { countingIn, createRuntime } from "./runtime.js";
import { createSession, registerDoor, type Session } from "./session.js";

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
  /**
   * The tokenizers a host may choose for its session (the tokenizer extension,
   * docs/tokens.md); default every registered one that is installed. `tokenizer` is
   * always among them.
   */
  tokenizers?: readonly TokenizerName[];
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
  /**
   * Depth against breadth, when candidates offer larger views: a candidate scoring this
   * much above another counts as twice as likely to be the one the host needs
   * (docs/packing.md). Default 0.05.
   */
  scoreStep?: number;
}

/** A provider: query it in-process, or serve it with a transport. */
export interface Provider {
  /** The identity written into `handshake_ack`. */
  readonly info: ProviderInfo;
  /** The capabilities written into `handshake_ack`. */
  readonly capabilities: Capabilities;
  /** The counter behind every `token_cost` (of a session or query that chose no tokenizer). */
  readonly counter: TokenCounter;
  /** The tokenizers a session or query may choose, in registry order. */
  readonly tokenizers: readonly TokenizerName[];
  /**
   * The counter whose counts become `token_cost` in answers counted in `tokenizer`
   * (one of {@link Provider.tokenizers}; its content cache is the one those answers use).
   */
  counterFor(tokenizer: TokenizerName): TokenCounter;
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
  if (options.tokenizers !== undefined) {
    if (!Array.isArray(options.tokenizers)) throw fail("tokenizers must be a list of tokenizer names");
    for (const name of options.tokenizers) {
      if (!TOKENIZERS.includes(name))
        throw fail(`tokenizers: '${String(name)}' is not one of ${TOKENIZERS.join(", ")}`);
      const pkg = tokenizerSpec(name).package;
      // Offered means countable: a missing vocabulary is said now, not at a host's first query.
      if (pkg !== undefined && !isInstalled(name)) throw new TokenizerMissingError(name, pkg.name, pkg.version);
    }
  }
  const step = options.scoreStep;
  if (step !== undefined && !(typeof step === "number" && step > 0 && Number.isFinite(step))) {
    throw fail("scoreStep must be a positive, finite number");
  }
}

/**
 * Defines a provider. Checks the configuration now and throws an {@link OcpError} if it
 * is unusable. The provider is a thin face over its runtime: the lifecycle
 * (lifecycle.ts) and the answer pipeline (answer.ts) do the work.
 */
export function defineProvider(options: ProviderOptions): Provider {
  checkOptions(options);
  const plugins = [...options.plugins];
  const queryExtensions = mergeExtensions(
    plugins,
    (message) => new OcpError(ERROR_CODES.PROVIDER_CONFIG, `defineProvider: ${message}`),
  );
  const runtime = createRuntime({
    name: options.name,
    plugins,
    log: options.logger ?? createLogger({ name: options.name }),
    tokenizer: options.tokenizer,
    tokenizers: options.tokenizers,
    root: resolve(options.root ?? process.cwd()),
    pluginTimeoutMs: options.pluginTimeoutMs ?? 10_000,
    setupTimeoutMs: options.setupTimeoutMs ?? 30_000,
    scoreStep: options.scoreStep,
  });
  const info: ProviderInfo = { name: options.name, version: options.version, data_flow: { ...options.dataFlow } };
  const capabilities: Capabilities = {
    query: { kinds: [...runtime.kinds], filters: [...new Set(plugins.flatMap((plugin) => plugin.filters ?? []))] },
    upsert: false,
    graph: plugins.some((plugin) => plugin.graph === true),
    embeddings_fingerprint: options.embeddingsFingerprint ?? null,
    subscribe: false,
  };

  let defaultSession: Session | undefined;
  const provider: Provider & { [PROVIDER_BRAND]: true } = {
    [PROVIDER_BRAND]: true,
    info,
    capabilities,
    counter: runtime.counter,
    tokenizers: runtime.offered,
    counterFor: (tokenizer) => {
      if (!runtime.offered.includes(tokenizer)) {
        throw new OcpError(
          ERROR_CODES.PROVIDER_CONFIG,
          `tokenizer '${String(tokenizer)}' is not one this provider offers (${runtime.offered.join(", ")})`,
        );
      }
      return countingIn(runtime, tokenizer).counter;
    },
    queryExtensions,
    root: runtime.root,
    log: runtime.log,
    start: () => startRuntime(runtime),
    query: async (query, queryOptions) => readAndAnswer(runtime, query, queryOptions),
    openSession: () => createSession(provider),
    handle: (envelope, handleOptions) => {
      defaultSession ??= createSession(provider);
      return defaultSession.handle(envelope, handleOptions);
    },
    close: () => closeRuntime(runtime),
  };
  // The one door into the pipeline, for sessions only: nothing of it is on the provider's type.
  registerDoor(provider, {
    answer: (query, queryOptions, raw, tokenizer) => answer(runtime, query, queryOptions, raw, tokenizer),
    writer: runtime.writer,
    tokenizers: {
      offered: runtime.offered,
      default: runtime.counter.tokenizer,
      prepare: (tokenizer) => preloadWhenIdle(runtime, countingIn(runtime, tokenizer).counter),
    },
  });
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
