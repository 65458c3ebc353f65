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
  signal?: AbortSignal;
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
  const controller = new AbortController();
  const stopOuter = () => controller.abort(options.signal?.reason);
  options.signal?.addEventListener("abort", stopOuter, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new PluginTimeout(`timed out after ${timeoutMs} ms`);
      controller.abort(error);
      reject(error);
    }, timeoutMs);
  });
  const aborted = new Promise<never>((_, reject) => {
    controller.signal.addEventListener("abort", () => reject(controller.signal.reason), { once: true });
  });
  // A plugin that ignores its signal keeps running in the background; its late
  // answer is discarded, and these handlers keep its rejection from going unhandled.
  expired.catch(() => {});
  aborted.catch(() => {});
  try {
    const context = { signal: controller.signal, deadline: Date.now() + timeoutMs, log };
    const output = await Promise.race([Promise.resolve().then(() => plugin.search(query, context)), expired, aborted]);
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
    options.signal?.removeEventListener("abort", stopOuter);
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
