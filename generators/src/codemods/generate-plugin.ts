/**
 * `generatePlugin({ name })`: a new plugin of your own inside an existing project —
 * `src/plugins/<name>.ts` and its test `test/plugins/<name>.test.ts`, from the
 * `plugin` template — wired into the provider file like {@link addPlugin} does.
 */
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join, relative, resolve } from "node:path";
import { FRAME_KINDS, type FrameKind } from "ocp-provider";
import { generateFiles } from "../create/generate.js";
import { refuseLinks } from "../create/no-links.js";
import { templatesDir } from "../create/template-dir.js";
import { CREATE_ERROR_CODES, CreateError } from "../errors.js";
import { wirePlugin } from "./wire-plugin.js";

/** The configuration of {@link generatePlugin}. */
export interface GeneratePluginOptions {
  /** The plugin's name, kebab-case (`tickets`, `release-notes`): its file name and `definePlugin` name. */
  name: string;
  /** The project directory; default the working directory. */
  project?: string;
  /** The frame kind it returns; default `doc`. */
  kind?: FrameKind;
  /** The provider file to wire it into, relative to the project; default `src/provider.ts`. `false` leaves it unwired. */
  provider?: string | false;
}

/** What {@link generatePlugin} wrote. */
export interface GeneratedPlugin {
  /** The files written, relative to the project. */
  files: string[];
  /** The factory's name (`releaseNotes`). */
  exportName: string;
  /** The provider file edited, if it changed. */
  wired?: string;
}

/** `release-notes` → `releaseNotes`. */
function camelCase(name: string): string {
  return name.replace(/-([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());
}

/**
 * Writes the plugin and its test, and wires it into the provider. Refuses to replace
 * existing files, or to write through a symbolic link in the project (`src/plugins` → elsewhere).
 */
export async function generatePlugin(options: GeneratePluginOptions): Promise<GeneratedPlugin> {
  const { name } = options;
  if (!/^[a-z][a-z0-9]*(-[a-z0-9]+)*$/.test(name)) {
    throw new CreateError(
      CREATE_ERROR_CODES.USAGE,
      `plugin name '${name}' must be kebab-case: lowercase letters and digits, words joined by '-'`,
    );
  }
  const kind = options.kind ?? "doc";
  if (!FRAME_KINDS.includes(kind)) {
    throw new CreateError(CREATE_ERROR_CODES.USAGE, `--kind must be one of ${FRAME_KINDS.join(", ")}, not '${kind}'`);
  }
  const project = resolve(options.project ?? ".");
  const providerFile = options.provider === false ? undefined : join(project, options.provider ?? "src/provider.ts");
  if (providerFile !== undefined && !existsSync(providerFile)) {
    throw new CreateError(
      CREATE_ERROR_CODES.CODEMOD_TARGET,
      `no provider file at ${relative(process.cwd(), providerFile) || providerFile}: run this in the project, or pass --provider`,
    );
  }
  const exportName = camelCase(name);
  for (const file of [`src/plugins/${name}.ts`, `test/plugins/${name}.test.ts`]) {
    if (existsSync(join(project, file))) {
      throw new CreateError(CREATE_ERROR_CODES.TARGET_NOT_EMPTY, `${file} already exists: choose another name`);
    }
  }
  // Check the provider file before writing anything, so a failure leaves the project as it was.
  let wiring: { text: string; changed: boolean } | undefined;
  if (providerFile !== undefined) {
    refuseLinks(project, providerFile);
    const text = await readFile(providerFile, "utf8");
    const specifier = relative(join(providerFile, ".."), join(project, "src/plugins", `${name}.js`))
      .split("\\")
      .join("/");
    wiring = wirePlugin(text, providerFile, {
      module: specifier.startsWith(".") ? specifier : `./${specifier}`,
      exportName,
      args: () => "",
    });
  }
  const files = await generateFiles({
    templatesDir: templatesDir(),
    layers: ["plugin"],
    destination: project,
    force: false,
    data: { fileName: name, pluginName: name, exportName, kind },
  });
  if (providerFile !== undefined && wiring?.changed) await writeFile(providerFile, wiring.text);
  return { files, exportName, wired: wiring?.changed ? providerFile : undefined };
}
