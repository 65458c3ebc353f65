/**
 * Loads a provider module for `ocp serve` / `ocp query`. TypeScript modules load
 * through tsx, so `ocp serve examples/docs-provider.ts` needs no build step.
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { ERROR_CODES, OcpError } from "../provider/errors.js";
import { isProvider, type Provider } from "../provider/provider.js";

let tsxRegistered = false;

/**
 * Imports `specifier` (a path) and returns its provider: the default export, a
 * named `provider` export, or either one as a (possibly async) factory function.
 */
export async function loadProvider(specifier: string): Promise<Provider> {
  const path = resolve(specifier);
  if (!existsSync(path)) throw new OcpError(ERROR_CODES.MODULE_LOAD, `no such module: ${specifier}`);
  if (/\.[cm]?tsx?$/.test(path) && !tsxRegistered) {
    const { register } = await import("tsx/esm/api");
    register();
    tsxRegistered = true;
  }
  let module: Record<string, unknown>;
  try {
    module = (await import(pathToFileURL(path).href)) as Record<string, unknown>;
  } catch (error) {
    throw new OcpError(ERROR_CODES.MODULE_LOAD, `could not load ${specifier}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  for (const candidate of [module.default, module.provider]) {
    const value = typeof candidate === "function" ? await (candidate as () => unknown)() : candidate;
    if (isProvider(value)) return value;
  }
  throw new OcpError(
    ERROR_CODES.MODULE_LOAD,
    `${specifier} has no provider: export default defineProvider({ ... }) (or a function returning one)`,
  );
}
