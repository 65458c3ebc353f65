/**
 * `create-ocp-provider add plugin <name>` and `create-ocp-provider generate plugin <name>`
 * (also reachable as `ocp add …` / `ocp generate …`): the codemods for a person.
 */
import { dirname, relative } from "node:path";
import { parseArgs } from "node:util";
import type { FrameKind } from "ocp-provider";
import { argsErrorMessage, useColor, wantsHelp } from "ocp-provider/cli";
import picocolors from "picocolors";
import { KNOWN_PLUGINS } from "../codemods/known-plugins.js";
import { CREATE_ERROR_CODES, CreateError } from "../errors.js";

/** Colours for stdout, by the rule every bin follows (NO_COLOR, FORCE_COLOR, a terminal). */
const pc = picocolors.createColors(useColor(process.stdout));

/** The default name of the command the codemods run under: this package's bin. */
const BIN = "create-ocp-provider";

/** The usage text of the codemod commands, as run by `bin` (`ocp` forwards its add and generate here). */
export const codemodUsage = (bin = BIN): string => `Usage:
  ${synopsis("add", bin)}
      Adds the plugin's import and call to defineProvider's plugins in --file, and the
      package to the nearest package.json. Idempotent.
  ${synopsis("generate", bin)}
      Writes src/plugins/<name>.ts and test/plugins/<name>.test.ts in the project here,
      and adds the plugin to the provider.
`;

function synopsis(command: "add" | "generate", bin: string): string {
  return command === "add"
    ? `${bin} add plugin <${Object.keys(KNOWN_PLUGINS).join("|")}> [--file src/provider.ts] [--no-package-json]`
    : `${bin} generate plugin <name> [--kind doc] [--provider src/provider.ts] [--no-wire]`;
}

/** The options of `add plugin` (exported, as those of `generate plugin`, for the test of the help against them). */
export const ADD_OPTIONS = {
  file: { type: "string", default: "src/provider.ts" },
  "no-package-json": { type: "boolean", default: false },
} as const;

/** The options of `generate plugin`. */
export const GENERATE_OPTIONS = {
  kind: { type: "string" },
  provider: { type: "string" },
  "no-wire": { type: "boolean", default: false },
} as const;

/** A usage error of `add` or `generate`: one line, with the command's synopsis. */
function usage(command: "add" | "generate", message: string, bin: string): CreateError {
  return new CreateError(
    CREATE_ERROR_CODES.USAGE,
    `${message} (usage: ${synopsis(command, bin)}; ${bin} ${command} --help says more)`,
  );
}

/** Runs a parseArgs call, turning its complaints (unknown option, missing value) into usage errors. */
function parsed<R>(command: "add" | "generate", bin: string, parse: () => R): R {
  try {
    return parse();
  } catch (error) {
    throw usage(command, argsErrorMessage(error) ?? (error as Error).message, bin);
  }
}

/** `add plugin <name>`, run as `bin`; resolves to the exit code. */
export async function addCommand(args: string[], bin = BIN): Promise<number> {
  if (wantsHelp(args)) {
    process.stdout.write(codemodUsage(bin));
    return 0;
  }
  const { values, positionals } = parsed("add", bin, () =>
    parseArgs({
      args,
      allowPositionals: true,
      options: ADD_OPTIONS,
    }),
  );
  const [what, name, ...rest] = positionals;
  if (what !== "plugin" || name === undefined || rest.length > 0)
    throw usage("add", "expected: add plugin <name>", bin);
  if (!Object.hasOwn(KNOWN_PLUGINS, name)) {
    throw usage("add", `unknown plugin '${name}' (expected ${Object.keys(KNOWN_PLUGINS).join(", ")})`, bin);
  }
  const file = values.file;
  // The codemods load ts-morph (and the TypeScript it bundles), a second of start-up:
  // only once the command line has been checked, never for help or a usage error.
  const { addDependency, addPlugin, findPackageJson } = await import("../codemods/add-plugin.js");
  const result = await addPlugin(file, name);
  const shown = relative(process.cwd(), result.file) || result.file;
  process.stdout.write(
    result.changed
      ? `${pc.green("✓")} ${shown}: added ${result.added.join(" and ")} for ${result.package}\n`
      : `${shown} already uses ${result.package}: nothing to do\n`,
  );
  if (result.added.includes("plugin")) process.stdout.write(`  ${KNOWN_PLUGINS[name]?.hint}\n`);
  const manifest = values["no-package-json"] ? undefined : findPackageJson(dirname(result.file));
  if (manifest !== undefined && (await addDependency(manifest, result.package))) {
    process.stdout.write(
      `${pc.green("✓")} ${relative(process.cwd(), manifest) || manifest}: added ${result.package}\n\nNext: npm install\n`,
    );
  }
  return 0;
}

/** `generate plugin <name>`, run as `bin`; resolves to the exit code. */
export async function generateCommand(args: string[], bin = BIN): Promise<number> {
  if (wantsHelp(args)) {
    process.stdout.write(codemodUsage(bin));
    return 0;
  }
  const { values, positionals } = parsed("generate", bin, () =>
    parseArgs({
      args,
      allowPositionals: true,
      options: GENERATE_OPTIONS,
    }),
  );
  const [what, name, ...rest] = positionals;
  if (what !== "plugin" || name === undefined || rest.length > 0)
    throw usage("generate", "expected: generate plugin <name>", bin);
  const { generatePlugin } = await import("../codemods/generate-plugin.js");
  const result = await generatePlugin({
    name,
    kind: values.kind as FrameKind | undefined,
    provider: values["no-wire"] ? false : values.provider,
  });
  for (const file of result.files) process.stdout.write(`${pc.green("✓")} wrote ${file}\n`);
  if (result.wired !== undefined) {
    process.stdout.write(
      `${pc.green("✓")} ${relative(process.cwd(), result.wired)}: added ${result.exportName}() to the plugins\n`,
    );
  }
  process.stdout.write("\nNext: write its search(), then npm test\n");
  return 0;
}
