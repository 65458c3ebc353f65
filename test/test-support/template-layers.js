/**
 * Template sources imported in place, as this repository's tests and benchmarks import
 * the search-index adapters. In a generated project a template's layers are one folder
 * (generators/src/create/generate.ts copies them in order), so an adapter's `./hits.js`
 * is there, written by the layer below it, `search-index/common`; here the layers are
 * separate folders. This resolves such an import as the copy would have: a relative
 * import from `templates/<group>/<layer>/…` that finds no file in that layer finds it at
 * the same place in `templates/<group>/common/`, the group's shared layer.
 *
 * Plain JavaScript: Node loads it as a module-resolution hook (template-layers-hooks.js),
 * where no TypeScript loader runs; vitest.config.ts uses it as a Vite resolver.
 */
import { existsSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const TEMPLATES = fileURLToPath(new URL("../../templates/", import.meta.url));
/** The folder of a group's shared layer. */
const SHARED = "common";

const isFile = (path) => existsSync(path) && statSync(path).isFile();
/** The file an import of `path` loads: itself, or the TypeScript source of a `.js` specifier. */
const sourceOf = (path) =>
  isFile(path)
    ? path
    : path.endsWith(".js") && isFile(`${path.slice(0, -3)}.ts`)
      ? `${path.slice(0, -3)}.ts`
      : undefined;

/**
 * The file in the group's shared layer that the relative import `specifier` of the
 * template file `importer` loads once the layers are copied together; `undefined` when
 * the importer's own layer has the file, or the import is not such an import.
 * @param {string} specifier
 * @param {string} importer an absolute path
 * @returns {string | undefined}
 */
export function sharedLayerSource(specifier, importer) {
  if (!specifier.startsWith("./") && !specifier.startsWith("../")) return undefined;
  const [group, layer] = relative(TEMPLATES, importer).split(sep);
  if (group === undefined || layer === undefined || group === ".." || layer === SHARED) return undefined;
  const layerRoot = join(TEMPLATES, group, layer);
  const wanted = resolve(dirname(importer), specifier);
  const inLayer = relative(layerRoot, wanted);
  // Not inside the importer's layer, or a file the layer has: nothing to do.
  if (inLayer.startsWith("..") || sourceOf(wanted) !== undefined) return undefined;
  return sourceOf(join(TEMPLATES, group, SHARED, inLayer));
}
