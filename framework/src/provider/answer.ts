/**
 * The answer pipeline, one named step after another:
 *
 *   read → route → fan out (each plugin's candidates checked and prepared) → settle →
 *   pack → build
 *
 * Every step reads the provider's {@link ProviderRuntime} and keeps no state of its
 * own. The pipeline answers synchronously when setup is over and every plugin asked
 * answered synchronously (no promise, no microtask hop), else as a promise.
 */
import { type PackOptions, type PackResult, packFrames } from "../pack/pack.js";
import type { TokenizerName } from "../tokens/registry.js";
import { describeIssues } from "../wire/codec.js";
import { readQueryFast } from "../wire/fast-query.js";
import { type ContextQuery, type ContextQueryResult, ContextQuerySchema, type FrameKind } from "../wire/schemas.js";
import { InvalidQueryError, UserError } from "./errors.js";
import { fanOut, type PluginOutcome } from "./fan-out.js";
import { buildFrame, type PreparedCandidate } from "./frames.js";
import { startRuntime } from "./lifecycle.js";
import type { Plugin } from "./plugin.js";
import type { QueryOptions, QueryTrace } from "./query-options.js";
import { countingIn, logOf, type ProviderRuntime } from "./runtime.js";

/** Reads any JSON value as a query (tolerantly), then answers it. Throws an {@link InvalidQueryError} for a bad one. */
export function readAndAnswer(
  runtime: ProviderRuntime,
  raw: unknown,
  options: QueryOptions = {},
): ContextQueryResult | Promise<ContextQueryResult> {
  const { tokenizer } = options;
  if (tokenizer !== undefined && !runtime.offered.includes(tokenizer)) {
    throw new InvalidQueryError(
      `tokenizer '${String(tokenizer)}' is not one this provider offers (${runtime.offered.join(", ")})`,
    );
  }
  const fast = readQueryFast(raw);
  if (fast !== undefined) return answer(runtime, fast, options, raw);
  const parsed = ContextQuerySchema.safeParse(raw);
  if (!parsed.success) throw new InvalidQueryError(describeIssues(parsed.error, raw));
  return answer(runtime, parsed.data, options, raw);
}

/**
 * Answers a checked query. `raw` is the query as sent: fields beyond the protocol's
 * reach the plugins from it. `tokenizer` is the session's (else `options.tokenizer`,
 * else the provider's own), one the provider offers. Throws (or rejects with) a
 * UserError when no plugin could answer.
 */
export function answer(
  runtime: ProviderRuntime,
  request: ContextQuery,
  options: QueryOptions = {},
  raw?: unknown,
  tokenizer: TokenizerName | undefined = options.tokenizer,
): ContextQueryResult | Promise<ContextQueryResult> {
  if (!runtime.ready) return startRuntime(runtime).then(() => answer(runtime, request, options, raw, tokenizer));
  const active = route(runtime, request.kinds);
  const counting =
    tokenizer === undefined || tokenizer === runtime.counter.tokenizer ? runtime : countingIn(runtime, tokenizer);
  // Plugins may hold the very query object: what the packer needs is read before they run.
  const limits: PackOptions = {
    maxTokens: request.max_tokens,
    maxFrames: request.max_frames,
    kinds: request.kinds,
    counter: counting.counter,
    cuts: counting.cuts,
    scoreStep: runtime.scoreStep,
  };
  const { trace, incomplete } = options;
  const began = trace === undefined ? 0 : performance.now();
  // Plugins see the fields the host sent beyond the protocol's (an extension such as
  // as_known_at) under the checked ones: the framework itself ignores them.
  const fanned = fanOut(withExtensions(request, raw), {
    plugins: active,
    timeoutMs: runtime.pluginTimeoutMs,
    signals: [options.signal, runtime.lifetime.signal],
    log: runtime.logFor,
    state: runtime.fanOut,
    frames: runtime.frames,
  });
  if (trace === undefined) {
    return Array.isArray(fanned)
      ? finish(runtime, fanned, limits, undefined, incomplete)
      : fanned.then((outcomes) => finish(runtime, outcomes, limits, undefined, incomplete));
  }
  const traced = (outcomes: readonly PluginOutcome[]) => {
    trace.searchMs = performance.now() - began;
    return finish(runtime, outcomes, limits, trace, incomplete);
  };
  return Array.isArray(fanned) ? traced(fanned) : fanned.then(traced);
}

/**
 * Route: the plugins a query reaches — set up, and serving one of the wanted kinds (any
 * kind when none is named). Throws a UserError when the only ones that would have served
 * it failed to set up.
 */
export function route(runtime: ProviderRuntime, wantedKinds: readonly FrameKind[]): readonly Plugin[] {
  const { plugins, disabled } = runtime;
  // Every plugin serves some kind of the provider's own list: no filtering to do.
  if (wantedKinds.length === 0 && disabled.size === 0) return plugins;
  const wanted = wantedKinds.length > 0 ? wantedKinds : runtime.kinds;
  const serves = (plugin: Plugin) => plugin.kinds.some((kind) => wanted.includes(kind));
  const active = plugins.filter((plugin) => !disabled.has(plugin) && serves(plugin));
  if (active.length === 0 && plugins.some(serves)) {
    throw new UserError(
      "no plugin is available for this query: every matching plugin failed to set up (see the provider's stderr)",
    );
  }
  return active;
}

/** Settle, pack and build: what the plugins found becomes the query's result. */
function finish(
  runtime: ProviderRuntime,
  outcomes: readonly PluginOutcome[],
  limits: PackOptions,
  trace?: QueryTrace,
  incomplete?: string[],
): ContextQueryResult {
  settle(runtime, outcomes);
  const packing = trace === undefined ? 0 : performance.now();
  const packed = pack(outcomes, limits);
  const framing = trace === undefined ? 0 : performance.now();
  if (trace !== undefined) trace.packMs = framing - packing;
  const result = build(runtime, outcomes, packed, incomplete);
  if (trace !== undefined) trace.framesMs = performance.now() - framing;
  return result;
}

/**
 * Settle: the query fails (a UserError) if no plugin answered; otherwise a failed
 * plugin's own message is said on stderr, since the query succeeds without it.
 */
export function settle(runtime: ProviderRuntime, outcomes: readonly PluginOutcome[]): void {
  if (outcomes.length > 0 && outcomes.every((outcome) => outcome.status !== "ok")) {
    const messages = outcomes.flatMap((outcome) => (outcome.userMessage !== undefined ? [outcome.userMessage] : []));
    const timedOut = outcomes.every((outcome) => outcome.status === "timeout");
    // Every plugin found the query itself unusable (a bad as_of): the host's mistake, which
    // a transport answers as one (HTTP 400), not the provider's failure.
    if (outcomes.every((outcome) => outcome.invalidQuery === true)) throw new InvalidQueryError(messages.join("; "));
    // The caller says it (the host gets it as an error envelope, ocp query prints it): not logged here too.
    throw new UserError(
      messages.length > 0
        ? messages.join("; ")
        : timedOut
          ? "search timed out"
          : "search failed in every plugin (details are on the provider's stderr)",
    );
  }
  for (const outcome of outcomes) {
    if (outcome.userMessage === undefined) continue;
    const plugin = runtime.plugins.find((candidate) => candidate.name === outcome.plugin) as Plugin;
    logOf(runtime, plugin).warn(outcome.userMessage);
  }
}

/** Pack: what ships under the budget, from every plugin's prepared candidates. */
export function pack(outcomes: readonly PluginOutcome[], limits: PackOptions): PackResult<PreparedCandidate> {
  return packFrames(
    outcomes.length === 1
      ? (outcomes[0] as PluginOutcome).candidates
      : outcomes.flatMap((outcome) => outcome.candidates),
    limits,
  );
}

/**
 * Build: the wire frames of what ships, and how much was left out. A plugin that could
 * not search all it serves makes the result truncated; when nothing else was left out,
 * how much is missing is unknown, so `dropped_estimate` is absent rather than 0. Its
 * sentence goes to `incomplete`, when the caller asked for it.
 */
export function build(
  runtime: ProviderRuntime,
  outcomes: readonly PluginOutcome[],
  packed: PackResult<PreparedCandidate>,
  incomplete?: string[],
): ContextQueryResult {
  let omitted = 0;
  let partial = false;
  for (const outcome of outcomes) {
    omitted += outcome.omitted;
    if (outcome.incomplete === undefined) continue;
    partial = true;
    incomplete?.push(`${outcome.plugin}: ${outcome.incomplete}`);
  }
  const dropped = packed.dropped + omitted;
  const truncated = packed.truncated || omitted > 0 || partial;
  return {
    frames: packed.frames.map((frame) => buildFrame(frame, runtime.frames)),
    truncated,
    dropped_estimate: truncated && (dropped > 0 || !partial) ? Math.min(dropped, 4_294_967_295) : undefined,
  };
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
