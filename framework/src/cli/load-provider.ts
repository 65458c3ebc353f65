/**
 * Loads a provider module for `ocp serve` / `ocp query`. Modules load through tsx,
 * so `ocp serve examples/docs-provider.ts` needs no build step, and a `.ts` or `.js`
 * file written with `import`/`export` loads in a package without `"type": "module"`
 * (npm init's default) as well as in an ESM package.
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { ERROR_CODES, OcpError } from "../provider/errors.js";
import { isProvider, type Provider } from "../provider/provider.js";

let tsxRegistered = false;

/**
 * Installs tsx's ESM *and* CommonJS hooks, once. In a CommonJS-default package tsx
 * hands a `.ts` (or ESM-syntax `.js`) file to the CommonJS loader: with only the ESM
 * hook, Node then fails with "Cannot require() ES Module … in a cycle". Global hooks
 * rather than tsx's scoped `tsImport`: that re-imports the whole framework under a
 * namespace, so the module would get a second copy of `ocp-provider` (and of zod),
 * and errors it throws would not be the CLI's `OcpError`.
 */
async function registerTsx(): Promise<void> {
  if (tsxRegistered) return;
  const [esm, cjs] = await Promise.all([import("tsx/esm/api"), import("tsx/cjs/api")]);
  cjs.register();
  esm.register();
  tsxRegistered = true;
}

/**
 * Imports `specifier` (a path) and returns its provider: the default export, a
 * named `provider` export, or either one as a (possibly async) factory function.
 */
export async function loadProvider(specifier: string): Promise<Provider> {
  const path = resolve(specifier);
  if (!existsSync(path)) throw new OcpError(ERROR_CODES.MODULE_LOAD, `no such module: ${specifier}`);
  await registerTsx();
  let module: Record<string, unknown>;
  try {
    module = (await import(pathToFileURL(path).href)) as Record<string, unknown>;
  } catch (error) {
    throw new OcpError(ERROR_CODES.MODULE_LOAD, `could not load ${specifier}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  // A module that ran as CommonJS arrives as { default: module.exports }: its own exports are one level down.
  const exports = typeof module.default === "object" && module.default !== null ? module.default : {};
  const { default: inner, provider: innerProvider } = exports as Record<string, unknown>;
  for (const candidate of [module.default, module.provider, inner, innerProvider]) {
    const value = typeof candidate === "function" ? await (candidate as () => unknown)() : candidate;
    if (isProvider(value)) return value;
  }
  throw new OcpError(
    ERROR_CODES.MODULE_LOAD,
    `${specifier} has no provider: export default defineProvider({ ... }) (or a function returning one)`,
  );
}
