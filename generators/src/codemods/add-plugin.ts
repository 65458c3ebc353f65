/**
 * `addPlugin(file, "ripgrep")`: wires one of our plugin packages into an existing
 * provider file — the import and the call in `defineProvider`'s `plugins` — keeping
 * the file's formatting and comments. Running it twice changes nothing the second time.
 */

import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { refuseLinks } from "../create/no-links.js";
import { OWN_VERSION } from "../create/templates.js";
import { CREATE_ERROR_CODES, CreateError } from "../errors.js";
import { KNOWN_PLUGINS } from "./known-plugins.js";
import { type WireResult, wirePlugin } from "./wire-plugin.js";

/** A plugin name {@link addPlugin} knows (one of {@link KNOWN_PLUGINS}' keys). */
export type KnownPlugin = string;

/** What {@link addPlugin} did. */
export interface AddPluginResult extends WireResult {
  /** The absolute path of the edited file. */
  file: string;
  /** The package the plugin comes from. */
  package: string;
}

async function readSource(file: string): Promise<string> {
  try {
    return await readFile(file, "utf8");
  } catch (error) {
    throw new CreateError(CREATE_ERROR_CODES.CODEMOD_TARGET, `cannot read ${file}: ${(error as Error).message}`);
  }
}

/**
 * Adds `import { <plugin> } from "ocp-plugin-<plugin>"` and `<plugin>({ ... })` to the
 * `defineProvider` call in `file`, and writes the file if that changed it. Throws
 * `OCP_ERR_CODEMOD_NO_PROVIDER` when the file has no `defineProvider({ plugins: [...] })`,
 * and `OCP_ERR_CREATE_SYMLINK` when it is a symbolic link (or a directory on its way
 * from the working directory is).
 */
export async function addPlugin(file: string, plugin: KnownPlugin): Promise<AddPluginResult> {
  const known = Object.hasOwn(KNOWN_PLUGINS, plugin) ? KNOWN_PLUGINS[plugin] : undefined;
  if (known === undefined) {
    throw new CreateError(
      CREATE_ERROR_CODES.USAGE,
      `unknown plugin '${plugin}' (expected ${Object.keys(KNOWN_PLUGINS).join(", ")})`,
    );
  }
  const path = resolve(file);
  refuseLinks(process.cwd(), path);
  const text = await readSource(path);
  const result = wirePlugin(text, path, { module: known.package, exportName: known.exportName, args: known.args });
  if (result.changed) await writeFile(path, result.text);
  return { ...result, file: path, package: known.package };
}

/** The nearest package.json at or above `dir`, if any. */
export function findPackageJson(dir: string): string | undefined {
  for (let current = resolve(dir); ; current = dirname(current)) {
    const candidate = join(current, "package.json");
    if (existsSync(candidate)) return candidate;
    if (dirname(current) === current) return undefined;
  }
}

/**
 * Adds `name: range` to the dependencies of `packageJson` unless it is already a
 * dependency of any kind; keeps the file's indentation. Resolves to true if it changed the file.
 * Without `range`: the project's override for the package when it has one (a project made
 * from a clone installs ours from `.ocp-packages/` tarballs that way), else `^` our version.
 * A package.json that is a symbolic link is refused (`OCP_ERR_CREATE_SYMLINK`).
 */
export async function addDependency(packageJson: string, name: string, range?: string): Promise<boolean> {
  refuseLinks(dirname(packageJson), packageJson);
  const text = await readFile(packageJson, "utf8");
  let manifest: Record<string, Record<string, string> | undefined>;
  try {
    manifest = JSON.parse(text);
  } catch (error) {
    throw new CreateError(CREATE_ERROR_CODES.CODEMOD_TARGET, `${packageJson} is not JSON: ${(error as Error).message}`);
  }
  const kinds = ["dependencies", "devDependencies", "peerDependencies", "optionalDependencies"];
  if (kinds.some((kind) => manifest[kind]?.[name] !== undefined)) return false;
  const override = manifest.overrides?.[name];
  const spec = range ?? (typeof override === "string" ? override : `^${OWN_VERSION}`);
  const dependencies = { ...manifest.dependencies, [name]: spec };
  manifest.dependencies = Object.fromEntries(Object.entries(dependencies).sort(([a], [b]) => a.localeCompare(b)));
  const indent = /^[ \t]+/m.exec(text)?.[0] ?? "  ";
  await writeFile(packageJson, `${JSON.stringify(manifest, null, indent)}\n`);
  return true;
}
