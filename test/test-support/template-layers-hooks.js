/**
 * Node module-resolution hooks (module.register) that let code run by Node import the
 * templates' sources in place, their layers composed as a generated project has them
 * (template-layers.js). The benchmarks register them before loading a benchmark.
 */
import { fileURLToPath, pathToFileURL } from "node:url";
import { sharedLayerSource } from "./template-layers.js";

/**
 * @param {string} specifier
 * @param {{ parentURL?: string }} context
 * @param {(specifier: string, context: object) => unknown} nextResolve
 */
export function resolve(specifier, context, nextResolve) {
  const parent = context.parentURL;
  const shared = parent?.startsWith("file:") ? sharedLayerSource(specifier, fileURLToPath(parent)) : undefined;
  return nextResolve(shared === undefined ? specifier : pathToFileURL(shared).href, context);
}
