/**
 * A provider's lifecycle: start (every plugin's setup, once, bounded; a failed one
 * disables its plugin) and close (abort what runs, close every plugin).
 */
import { describeError, ERROR_CODES } from "./errors.js";
import type { Plugin } from "./plugin.js";
import { logOf, type ProviderRuntime } from "./runtime.js";

/** Runs plugin setups once (bounded); queries wait for it. */
export function startRuntime(runtime: ProviderRuntime): Promise<void> {
  runtime.started ??= (async () => {
    // Yield first: a transport starts us right after writing the handshake_ack,
    // and loading tokenizer tables must not delay that write.
    await new Promise((done) => setImmediate(done));
    runtime.counter.preload();
    await Promise.all(runtime.plugins.map((plugin) => setupOne(runtime, plugin)));
    runtime.ready = true;
  })();
  return runtime.started;
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
