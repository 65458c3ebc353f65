/**
 * A provider's runtime: everything one provider holds while it lives — its plugins and
 * their loggers, its counter, its lifecycle flags, and every memo of the answer
 * pipeline (fan-out bookkeeping, frame ids and digests, cuts, the frames writer). One
 * object, made once per provider and passed down each step, so two providers in one
 * process share no state by accident: no module of the pipeline keeps any of its own.
 */
import { CutMemo } from "../pack/pack.js";
import { createTokenCounter, type TokenCounter, type TokenizerName } from "../tokens/counter.js";
import { installedTokenizers, TOKENIZERS } from "../tokens/registry.js";
import { createFramesWriter, type FramesWriter } from "../wire/frames-json.js";
import { FRAME_KINDS, type FrameKind } from "../wire/schemas.js";
import { FanOutState } from "./fan-out.js";
import { type FrameContext, frameContext } from "./frames.js";
import type { Logger } from "./logger.js";
import type { Plugin } from "./plugin.js";

/** What a runtime is made from: the provider's options, checked and resolved. */
export interface RuntimeOptions {
  /** The provider's name (provenance `by`, log prefixes). */
  readonly name: string;
  /** The plugins, checked. */
  readonly plugins: readonly Plugin[];
  /** The provider's logger. */
  readonly log: Logger;
  /** The tokenizer token costs reproduce; default `o200k_base`. */
  readonly tokenizer?: TokenizerName;
  /** The tokenizers a host may choose for its session; default every one installed. */
  readonly tokenizers?: readonly TokenizerName[];
  /** The absolute root file paths are shown relative to. */
  readonly root: string;
  /** Bound on each plugin's search(), in milliseconds. */
  readonly pluginTimeoutMs: number;
  /** Bound on each plugin's setup(), in milliseconds. */
  readonly setupTimeoutMs: number;
  /** The packer's `scoreStep` (how sure a score difference makes it); undefined: its default. */
  readonly scoreStep?: number;
}

/** One provider's state, as each step of the lifecycle and the answer pipeline reads it. */
export interface ProviderRuntime {
  readonly plugins: readonly Plugin[];
  /** The kinds some plugin serves, in the protocol's order. */
  readonly kinds: readonly FrameKind[];
  readonly log: Logger;
  /** Each plugin's logger: the provider's, naming the plugin. */
  readonly pluginLog: ReadonlyMap<Plugin, Logger>;
  /** A plugin's logger, as one function made once (fan-out asks for it on every query). */
  readonly logFor: (plugin: Plugin) => Logger;
  /** The counter behind every `token_cost` of a session that chose no tokenizer. */
  readonly counter: TokenCounter;
  /** The tokenizers a host may choose for its session (the default among them), in registry order. */
  readonly offered: readonly TokenizerName[];
  /** Each tokenizer's counter and cuts, made when a session or query first counts in it. */
  readonly countings: Map<TokenizerName, Counting>;
  readonly root: string;
  readonly pluginTimeoutMs: number;
  readonly setupTimeoutMs: number;
  /** The packer's `scoreStep`, or undefined for its default. */
  readonly scoreStep: number | undefined;
  /** Aborted by close(): stops setups and every search in flight. */
  readonly lifetime: AbortController;
  /** Plugins whose setup failed: no query reaches them. */
  readonly disabled: Set<Plugin>;
  /** start()'s one run, once asked for. */
  started: Promise<void> | undefined;
  /** Set once start() has finished: plugin setup is over, every query may go straight on. */
  ready: boolean;
  /** Calls in flight and the outer signals listened to. */
  readonly fanOut: FanOutState;
  /** Frame ids, digests and display paths, memoised. */
  readonly frames: FrameContext;
  /** Cuts found by the packer, for repeated queries. */
  readonly cuts: CutMemo;
  /** Writes this provider's frames envelopes, with its own memos. */
  readonly writer: FramesWriter;
}

/** A counter and the cuts found with it: cuts are only valid for the counter that made them. */
export interface Counting {
  readonly counter: TokenCounter;
  readonly cuts: CutMemo;
}

/** Makes a provider's runtime: fresh state and fresh memos, shared with nothing. */
export function createRuntime(options: RuntimeOptions): ProviderRuntime {
  const { plugins, log } = options;
  const pluginLog = new Map(plugins.map((plugin) => [plugin, prefixed(log, plugin.name)]));
  const counter = createTokenCounter({ tokenizer: options.tokenizer });
  const cuts = new CutMemo();
  const listed = new Set([...(options.tokenizers ?? installedTokenizers()), counter.tokenizer]);
  return {
    plugins,
    kinds: FRAME_KINDS.filter((kind) => plugins.some((plugin) => plugin.kinds.includes(kind))),
    log,
    pluginLog,
    logFor: (plugin) => pluginLog.get(plugin) as Logger,
    counter,
    offered: TOKENIZERS.filter((name) => listed.has(name)),
    countings: new Map([[counter.tokenizer, { counter, cuts }]]),
    root: options.root,
    pluginTimeoutMs: options.pluginTimeoutMs,
    setupTimeoutMs: options.setupTimeoutMs,
    scoreStep: options.scoreStep,
    lifetime: new AbortController(),
    disabled: new Set(),
    started: undefined,
    ready: false,
    fanOut: new FanOutState(),
    frames: frameContext(options.name, options.root),
    cuts,
    writer: createFramesWriter(),
  };
}

/**
 * The counter and cuts of `tokenizer` in `runtime`, made on first use (no vocabulary is
 * loaded until it counts). The caller checks that the provider offers it.
 */
export function countingIn(runtime: ProviderRuntime, tokenizer: TokenizerName): Counting {
  let counting = runtime.countings.get(tokenizer);
  if (counting === undefined) {
    counting = { counter: createTokenCounter({ tokenizer }), cuts: new CutMemo() };
    runtime.countings.set(tokenizer, counting);
  }
  return counting;
}

/** The logger of `plugin` in `runtime`. */
export function logOf(runtime: ProviderRuntime, plugin: Plugin): Logger {
  return runtime.logFor(plugin);
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
