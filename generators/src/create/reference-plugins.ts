/**
 * The reference plugins, as each declares itself in the `"ocp"` field of its
 * package.json: the codemod `add plugin <name>` wires it, and (with a `template`)
 * `--template <name>` scaffolds a project on it from `templates/<name>/`. Adding a
 * plugin is its folder and that field; nothing here names one.
 *
 * In this repository they are read from `plugins/*\/package.json`, so an edit shows up
 * at once; the published package carries them in `plugins.json` (written by `prepack`).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { CREATE_ERROR_CODES, CreateError } from "../errors.js";

/** A step of a generated README: a script of the project and why to run it. */
export interface DeclaredStep {
  readonly script: string;
  readonly args?: string;
  readonly why: string;
  readonly serves?: boolean;
}

/** A plugin's `"ocp"` field, with the package it is in. */
export interface PluginDeclaration {
  /** The plugin's short name: `add plugin <name>`, `--template <name>`. */
  readonly name: string;
  /** The npm package: `ocp-plugin-ripgrep`. */
  readonly package: string;
  /** Where menus and usage lists put it (lowest first). */
  readonly order: number;
  /** How a provider calls it. */
  readonly plugin: {
    /** The factory's exported name. */
    readonly export: string;
    /** The factory's argument as source code, in double quotes (the codemod uses the file's quotes). */
    readonly args: string;
    /** One line printed after `add plugin` wires it: what to do next. */
    readonly hint: string;
  };
  /** Its project template, when it has one (`templates/<name>/`). */
  readonly template?: {
    /** One line for the template menu. */
    readonly hint: string;
    /** A goal the template's sample data answers (README example, `npm run inspect --query`). */
    readonly sampleGoal: string;
    /** Dependencies whose install scripts must run. */
    readonly allowScripts?: readonly string[];
    /** Extra package.json scripts. */
    readonly scripts?: Readonly<Record<string, string>>;
    /** README commands to run before the others. */
    readonly firstSteps?: readonly DeclaredStep[];
  };
}

/** The file the published package carries the declarations in, beside `dist/`. */
export const PACKAGED_PLUGINS_FILE = "plugins.json";

let cached: readonly PluginDeclaration[] | undefined;

/** Every reference plugin's declaration, in menu order. */
export function referencePlugins(): readonly PluginDeclaration[] {
  cached ??= load();
  return cached;
}

function load(): readonly PluginDeclaration[] {
  const monorepo = new URL("../../../", import.meta.url);
  const manifest = new URL("package.json", monorepo);
  if (existsSync(manifest) && existsSync(new URL("plugins/", monorepo))) {
    const { name } = JSON.parse(readFileSync(manifest, "utf8")) as { name?: string };
    if (name === "ocp-provider-monorepo") return readPluginFolders(fileURLToPath(new URL("plugins/", monorepo)));
  }
  const packaged = new URL(`../../${PACKAGED_PLUGINS_FILE}`, import.meta.url);
  if (!existsSync(packaged)) {
    throw new Error(`create-ocp-provider is missing ${fileURLToPath(packaged)}: reinstall it`);
  }
  const list = JSON.parse(readFileSync(packaged, "utf8")) as unknown[];
  return sorted(list.map((entry, i) => checkDeclaration(entry, `${PACKAGED_PLUGINS_FILE}[${i}]`)));
}

/** The declarations of the plugin folders under `dir` (each `<dir>/<folder>/package.json` with an `"ocp"` field). */
export function readPluginFolders(dir: string): readonly PluginDeclaration[] {
  const found: PluginDeclaration[] = [];
  for (const folder of readdirSync(dir, { withFileTypes: true })) {
    if (!folder.isDirectory()) continue;
    const path = `${dir}${dir.endsWith("/") ? "" : "/"}${folder.name}/package.json`;
    if (!existsSync(path)) continue;
    const manifest = JSON.parse(readFileSync(path, "utf8")) as { name?: unknown; ocp?: unknown };
    if (manifest.ocp === undefined) continue;
    found.push(checkDeclaration({ ...(manifest.ocp as object), package: manifest.name }, path));
  }
  return sorted(found);
}

function sorted(list: PluginDeclaration[]): readonly PluginDeclaration[] {
  const names = new Set<string>();
  for (const declaration of list) {
    if (names.has(declaration.name))
      throw invalid(declaration.package, `a second plugin is named '${declaration.name}'`);
    names.add(declaration.name);
  }
  return list.sort((a, b) => a.order - b.order || a.name.localeCompare(b.name));
}

const isText = (value: unknown): value is string => typeof value === "string" && value.trim() !== "";

/** Checks one declaration's shape, naming where it came from and what is wrong. */
function checkDeclaration(value: unknown, where: string): PluginDeclaration {
  const d = value as Partial<Record<keyof PluginDeclaration, unknown>>;
  if (typeof d !== "object" || d === null) throw invalid(where, 'the "ocp" field is not an object');
  if (!isText(d.package)) throw invalid(where, "no package name");
  if (!isText(d.name) || !/^[a-z][a-z0-9-]*$/.test(d.name)) throw invalid(where, "ocp.name must be a kebab-case word");
  if (typeof d.order !== "number") throw invalid(where, "ocp.order must be a number");
  const plugin = d.plugin as Partial<Record<string, unknown>> | undefined;
  if (!isText(plugin?.export) || !isText(plugin?.args) || !isText(plugin?.hint)) {
    throw invalid(where, "ocp.plugin needs export, args and hint");
  }
  const template = d.template as Partial<Record<string, unknown>> | undefined;
  if (template !== undefined && (!isText(template.hint) || !isText(template.sampleGoal))) {
    throw invalid(where, "ocp.template needs hint and sampleGoal");
  }
  return d as PluginDeclaration;
}

function invalid(where: string, problem: string): CreateError {
  return new CreateError(CREATE_ERROR_CODES.PLUGIN_DECLARATION, `${where}: ${problem}`);
}
