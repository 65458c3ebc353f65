/**
 * A provider's lifecycle: start (every plugin's setup, once, bounded; a failed one
 * disables its plugin) and close (abort what runs, close every plugin).
 */
import type { TokenCounter } from "../tokens/counter.js";
import { describeError, ERROR_CODES } from "./errors.js";
import type { Plugin } from "./plugin.js";
import { logOf, type ProviderRuntime } from "./runtime.js";

/**
 * How long after start-up the tokenizer tables are loaded if no query has needed them
 * first. Loading them blocks the event loop (~0.4 s on a quiet 2-core machine, over a
 * second under load): right after the handshake it would hold up a `shutdown` or EOF
 * that arrives then (a host that only checks the provider, or gives up), so they are
 * loaded once the provider has been idle this long, and never once it is closing. A query
 * that comes sooner loads them on demand, at the same cost.
 */
const PRELOAD_DELAY_MS = 250;

/** Runs plugin setups once (bounded); queries wait for it. Loads the tokenizer tables once idle. */
export function startRuntime(runtime: ProviderRuntime): Promise<void> {
  runtime.started ??= (async () => {
    // Yield first: a transport starts us right after writing the handshake_ack.
    await new Promise((done) => setImmediate(done));
    preloadWhenIdle(runtime, runtime.counter);
    await Promise.all(runtime.plugins.map((plugin) => setupOne(runtime, plugin)));
    runtime.ready = true;
  })();
  return runtime.started;
}

/**
 * Loads `counter`'s tokenizer tables after {@link PRELOAD_DELAY_MS}, unless the provider
 * is closed by then: the provider's own at start, a session's chosen one after its ack.
 * A failure to load is left for the first count to report.
 */
export function preloadWhenIdle(runtime: ProviderRuntime, counter: TokenCounter): void {
  const { signal } = runtime.lifetime;
  if (signal.aborted) return;
  const timer = setTimeout(() => {
    try {
      counter.preload();
    } catch (error) {
      runtime.log.warn(`could not load tokenizer '${counter.tokenizer}': ${describeError(error)}`);
    }
  }, PRELOAD_DELAY_MS);
  // Never what keeps the process alive: a provider with nothing else to do may exit.
  timer.unref();
  signal.addEventListener("abort", () => clearTimeout(timer), { once: true });
}

/** Stops setups and searches, and closes every plugin; a plugin's failure to close is only logged. */
export async function closeRuntime(runtime: ProviderRuntime): Promise<void> {
  runtime.lifetime.abort(new Error("provider closed"));
  await Promise.all(
    runtime.plugins.map(async (plugin) => {
      try {
        await plugin.close?.();
      } catch (error) {
        logOf(runtime, plugin).warn(`close failed: ${describeError(error)}`);
      }
    }),
  );
}

async function setupOne(runtime: ProviderRuntime, plugin: Plugin): Promise<void> {
  if (plugin.setup === undefined) return;
  const plog = logOf(runtime, plugin);
  const signal = AbortSignal.any([runtime.lifetime.signal, AbortSignal.timeout(runtime.setupTimeoutMs)]);
  try {
    await Promise.race([
      plugin.setup({ signal, log: plog }),
      new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason), { once: true })),
    ]);
  } catch (error) {
    runtime.disabled.add(plugin);
    plog.error(`${ERROR_CODES.PLUGIN_SETUP}: setup failed, plugin disabled: ${describeError(error)}`);
  }
}
