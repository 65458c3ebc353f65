/**
 * Writes a project from template layers with node-plop. Each layer is a folder of
 * `templates/`: a file ending `.hbs` is a Handlebars template (the suffix is dropped),
 * any other file is copied byte for byte, `_gitignore` becomes `.gitignore` (npm pack
 * drops files named .gitignore), `_partials/NAME.hbs` defines the partial `NAME`, and
 * `__key__` in a path is replaced by the data's `key` (`src/plugins/__fileName__.ts.hbs`).
 * A later layer's file replaces an earlier one's. Nothing is written through a
 * symbolic link in the destination (no-links.ts).
 */
import { copyFile, mkdir, readdir, readFile } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";
import nodePlop, { type ActionType, type CustomActionFunction } from "node-plop";
import { CREATE_ERROR_CODES, CreateError } from "../errors.js";
import { refuseLinks } from "./no-links.js";

/** One file of the plan: where it comes from, and whether it is rendered. */
interface PlannedFile {
  source: string;
  render: boolean;
}

/** What {@link generateFiles} writes. */
export interface GenerateOptions {
  /** The absolute templates folder. */
  templatesDir: string;
  /** Layers (folders of the templates folder), in order. */
  layers: readonly string[];
  /** The directory to write into. */
  destination: string;
  /** Data the templates see. */
  data: Record<string, unknown>;
  /** Replace files that exist. */
  force: boolean;
}

async function walk(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const files = await Promise.all(
    entries.map((entry) =>
      entry.isDirectory()
        ? walk(join(dir, entry.name))
        : Promise.resolve(entry.isFile() ? [join(dir, entry.name)] : []),
    ),
  );
  return files.flat();
}

/** Collects the files and partials of the layers; later layers win. */
async function plan(options: GenerateOptions) {
  const files = new Map<string, PlannedFile>();
  const partials = new Map<string, string>();
  for (const layer of options.layers) {
    const root = join(options.templatesDir, layer);
    for (const file of await walk(root)) {
      const rel = relative(root, file).split(sep).join("/");
      if (rel.startsWith("_partials/")) {
        partials.set(rel.slice("_partials/".length).replace(/\.hbs$/, ""), await readFile(file, "utf8"));
        continue;
      }
      const render = rel.endsWith(".hbs");
      const target = (render ? rel.slice(0, -".hbs".length) : rel)
        .replace(/(^|\/)_gitignore$/, "$1.gitignore")
        .replace(/__([A-Za-z]+)__/g, (whole, key: string) => String(options.data[key] ?? whole));
      files.set(target, { source: file, render });
    }
  }
  return { files, partials };
}

/** node-plop action: copy a file as is (templates that are not .hbs may hold `{{` legitimately). */
const copyAction: CustomActionFunction = async (_answers, config) => {
  const { source, destination } = config as unknown as { source: string; destination: string };
  await mkdir(dirname(destination), { recursive: true });
  await copyFile(source, destination);
  return destination;
};

/** Writes the project; resolves to the relative paths written, sorted. Throws a {@link CreateError} on any failure. */
export async function generateFiles(options: GenerateOptions): Promise<string[]> {
  const { files, partials } = await plan(options);
  // Every target checked before the first is written: a refusal leaves the project as it was.
  for (const target of files.keys()) refuseLinks(options.destination, join(options.destination, target));
  const plop = await nodePlop("", { destBasePath: options.destination, force: options.force });
  plop.setHelper("json", (value: unknown) => JSON.stringify(value));
  plop.setHelper("eq", (a: unknown, b: unknown) => a === b);
  for (const [name, text] of partials) plop.setPartial(name, text);
  plop.setActionType("copy", copyAction);
  const actions: ActionType[] = [...files].map(([target, file]) =>
    file.render
      ? { type: "add", path: join(options.destination, target), templateFile: file.source, abortOnFail: true }
      : ({
          type: "copy",
          source: file.source,
          destination: join(options.destination, target),
          abortOnFail: true,
        } as unknown as ActionType),
  );
  plop.setGenerator("project", { description: "an OCP provider project", prompts: [], actions });
  const { failures } = await plop.getGenerator("project").runActions(options.data);
  if (failures.length > 0) {
    const first = failures.find((failure) => failure.error !== "Aborted due to previous action failure") ?? failures[0];
    throw new CreateError(
      CREATE_ERROR_CODES.GENERATE_FAILED,
      `could not write the project: ${first?.error ?? "unknown error"}${first?.path ? ` (${first.path})` : ""}`,
    );
  }
  return [...files.keys()].sort();
}
