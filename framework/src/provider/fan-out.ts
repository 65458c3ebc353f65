/**
 * Fan-out: one query to every plugin that serves a requested kind, each bounded by
 * its timeout and isolated from the others — a plugin that throws, hangs or returns
 * junk loses only its own candidates, and says so on stderr under its name.
 */
import type { ContextQuery } from "../wire/schemas.js";
import { describeError, ERROR_CODES, UserError } from "./errors.js";
import { type PreparedCandidate, prepareCandidate } from "./frames.js";
import type { Logger } from "./logger.js";
import type { Plugin, SearchOutput } from "./plugin.js";

/** What one plugin contributed to a query. */
export interface PluginOutcome {
  readonly plugin: string;
  readonly status: "ok" | "failed" | "timeout";
  /** Candidates that passed the checks. */
  readonly candidates: PreparedCandidate[];
  /** Matches the plugin reported leaving out (candidates rejected as invalid are not counted). */
  readonly omitted: number;
  /** For `failed`: a message meant for the host when the plugin threw a UserError. */
  readonly userMessage?: string;
}

/** Options of {@link fanOut}. */
export interface FanOutOptions {
  plugins: readonly Plugin[];
  timeoutMs: number;
  /** Signals that stop every plugin (the host went away, the provider is closing). */
  signals?: readonly (AbortSignal | undefined)[];
  log: (plugin: Plugin) => Logger;
}

/** Runs the query against every plugin at once and collects their outcomes, in plugin order. */
export async function fanOut(query: ContextQuery, options: FanOutOptions): Promise<PluginOutcome[]> {
  return Promise.all(options.plugins.map((plugin) => runPlugin(plugin, query, options)));
}

class PluginTimeout extends Error {}

async function runPlugin(plugin: Plugin, query: ContextQuery, options: FanOutOptions): Promise<PluginOutcome> {
  const log = options.log(plugin);
  const timeoutMs = plugin.timeoutMs ?? options.timeoutMs;
  // One controller per plugin, linked to the outer signals by hand: AbortSignal.any()
  // on long-lived signals costs a WeakRef per call and, on Node 20, keeps them alive.
  const controller = new AbortController();
  const outer = (options.signals ?? []).filter((signal): signal is AbortSignal => signal !== undefined);
  const stop = (event: Event) => controller.abort((event.target as AbortSignal).reason);
  for (const signal of outer) {
    if (signal.aborted) controller.abort(signal.reason);
    else signal.addEventListener("abort", stop, { once: true });
  }
  const timer = setTimeout(() => controller.abort(new PluginTimeout(`timed out after ${timeoutMs} ms`)), timeoutMs);
  // A plugin that ignores its signal keeps running in the background; its late answer
  // is discarded. The race settles on the abort, whatever the plugin does.
  const aborted = new Promise<never>((_, reject) => {
    if (controller.signal.aborted) reject(controller.signal.reason);
    controller.signal.addEventListener("abort", () => reject(controller.signal.reason), { once: true });
  });
  aborted.catch(() => {});
  try {
    const context = { signal: controller.signal, deadline: Date.now() + timeoutMs, log };
    const output = await Promise.race([Promise.resolve().then(() => plugin.search(query, context)), aborted]);
    return collect(plugin, output, log);
  } catch (error) {
    if (error instanceof PluginTimeout) {
      log.error(`${ERROR_CODES.PLUGIN_TIMEOUT}: search ${error.message}; its candidates are dropped`);
      return { plugin: plugin.name, status: "timeout", candidates: [], omitted: 0 };
    }
    log.error(`${ERROR_CODES.PLUGIN_FAILED}: search failed: ${describeError(error)}`);
    if (error instanceof Error && error.stack !== undefined) log.debug(error.stack);
    return {
      plugin: plugin.name,
      status: "failed",
      candidates: [],
      omitted: 0,
      userMessage: error instanceof UserError ? error.message : undefined,
    };
  } finally {
    clearTimeout(timer);
    for (const signal of outer) signal.removeEventListener("abort", stop);
  }
}

function collect(plugin: Plugin, output: SearchOutput, log: Logger): PluginOutcome {
  const list: unknown = Array.isArray(output) ? output : (output as { candidates?: unknown })?.candidates;
  if (!Array.isArray(list)) {
    log.error(`${ERROR_CODES.PLUGIN_FAILED}: search must return an array of candidates or { candidates }`);
    return { plugin: plugin.name, status: "failed", candidates: [], omitted: 0 };
  }
  const reported = Array.isArray(output) ? 0 : Number(output.omitted ?? 0);
  const candidates: PreparedCandidate[] = [];
  let rejected = 0;
  let clamped = 0;
  for (const [index, raw] of list.entries()) {
    const outcome = prepareCandidate(raw, plugin);
    if (outcome.ok) {
      candidates.push(outcome.prepared);
      if (outcome.clamped) clamped++;
    } else {
      rejected++;
      if (rejected <= 3) log.warn(`candidate #${index} rejected: ${outcome.reason}`);
    }
  }
  if (rejected > 3) log.warn(`${rejected - 3} more candidates rejected`);
  if (clamped > 0)
    log.warn(`${clamped} candidate(s) had relevance above 1 and were clamped to 1 (declare scores: "unbounded"?)`);
  const omitted = Number.isInteger(reported) && reported > 0 ? reported : 0;
  return { plugin: plugin.name, status: "ok", candidates, omitted };
}
