/**
 * Loads a provider module for `ocp serve` / `ocp query`. Modules load through tsx,
 * so `ocp serve examples/docs-provider.ts` needs no build step, and a `.ts` or `.js`
 * file written with `import`/`export` loads in a package without `"type": "module"`
 * (npm init's default) as well as in an ESM package. An `.mjs` file loads as Node loads
 * it, without tsx (see importModule).
 */
import { existsSync } from "node:fs";
import { relative, resolve, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
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
 * Imports the module at `path`: an `.mjs` file as Node itself loads it, anything else
 * through tsx. `.mjs` is JavaScript and an ES module by its name alone, so tsx's hooks
 * thread, which doubled such a provider's start-up, buys it nothing. (A `.js` file could
 * be a TypeScript project's, importing `./x.js` where only `x.ts` exists: tsx.)
 */
async function importModule(path: string): Promise<Record<string, unknown>> {
  if (!path.endsWith(".mjs")) await registerTsx();
  return (await import(pathToFileURL(path).href)) as Record<string, unknown>;
}

/**
 * Imports `specifier` (a path) and returns its provider: the default export, a
 * named `provider` export, or either one as a (possibly async) factory function.
 */
export async function loadProvider(specifier: string): Promise<Provider> {
  const path = resolve(specifier);
  if (!existsSync(path)) throw new OcpError(ERROR_CODES.MODULE_LOAD, `no such module: ${specifier}`);
  let module: Record<string, unknown>;
  try {
    module = await importModule(path);
  } catch (error) {
    throw loadError(specifier, error);
  }
  // A module that ran as CommonJS arrives as { default: module.exports }: its own exports are one level down.
  const exports = typeof module.default === "object" && module.default !== null ? module.default : {};
  const { default: inner, provider: innerProvider } = exports as Record<string, unknown>;
  for (const candidate of [module.default, module.provider, inner, innerProvider]) {
    let value: unknown = candidate;
    try {
      if (typeof candidate === "function") value = await (candidate as () => unknown)();
    } catch (error) {
      throw loadError(specifier, error);
    }
    if (isProvider(value)) return value;
  }
  throw new OcpError(
    ERROR_CODES.MODULE_LOAD,
    `${specifier} has no provider: export default defineProvider({ ... }) (or a function returning one)`,
  );
}

/** The framework's own directory: its frames are never the user's. */
const FRAMEWORK = fileURLToPath(new URL("../../", import.meta.url));

/**
 * Where in the user's code `error` was thrown: the first frame of its stack that is not
 * Node's, a dependency's (node_modules) or the framework's — `src/provider.ts:12:9`,
 * relative to `cwd` when inside it. Undefined when the stack has none.
 */
export function userFrame(error: unknown, cwd: string = process.cwd()): string | undefined {
  const stack = (error as { stack?: unknown } | null)?.stack;
  if (typeof stack !== "string") return undefined;
  for (const line of stack.split("\n")) {
    // "    at fn (/dir/file.ts:3:16)" or "    at /dir/file.ts:3:16", paths or file: URLs.
    const found = /^\s+at (?:.*? \()?((?:file:\/\/)?\/[^()]*?):(\d+):(\d+)\)?$/.exec(line);
    if (found === null) continue;
    const file = (found[1] as string).startsWith("file:") ? fileURLToPath(found[1] as string) : (found[1] as string);
    if (file.includes(`${sep}node_modules${sep}`) || file.startsWith(FRAMEWORK)) continue;
    const shown = file.startsWith(cwd + sep) ? relative(cwd, file) : file;
    return `${shown}:${found[2]}:${found[3]}`;
  }
  return undefined;
}

/** A module that threw while loading: its message, and where in the user's code (OCP_LOG=debug prints the stack). */
function loadError(specifier: string, error: unknown): OcpError {
  // One line, and paths under the working directory as the user typed them (a compile error names its file).
  const message = (error instanceof Error ? error.message : String(error))
    .replace(/\s*\n\s*/g, " ")
    .replaceAll(`${process.cwd()}${sep}`, "")
    .trim();
  const at = userFrame(error);
  const where = at === undefined || message.includes(at) ? "" : ` (at ${at})`;
  const hint =
    specifier.endsWith(".mjs") && (error as { code?: unknown } | null)?.code === "ERR_UNKNOWN_FILE_EXTENSION"
      ? " (an .mjs file loads as Node loads it, without TypeScript: name it .mts to import TypeScript)"
      : "";
  return new OcpError(ERROR_CODES.MODULE_LOAD, `could not load ${specifier}: ${message}${where}${hint}`, {
    cause: error,
  });
}
