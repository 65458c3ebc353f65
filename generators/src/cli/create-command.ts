/**
 * `npm create ocp-provider [dir] -- [flags]`: flags first; on a terminal, prompts for
 * whatever the flags left open; without one (CI, a pipe, stdin from /dev/null) it
 * never waits for input: missing choices take their defaults, a missing directory is
 * a usage error.
 */
import { existsSync, realpathSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { parseArgs } from "node:util";
import * as prompts from "@clack/prompts";
import { argsErrorMessage, useColor, wantsHelp } from "ocp-provider/cli";
import picocolors from "picocolors";
import { KNOWN_PLUGINS } from "../codemods/known-plugins.js";
import {
  type CreatedProject,
  type CreateOptions,
  checkTarget,
  createProject,
  detectPackageManager,
  invalidPackageName,
  occupants,
  packageNameFrom,
} from "../create/create-project.js";
import {
  INDEX_KINDS,
  type IndexKind,
  readmeCommands,
  readmeSteps,
  TEMPLATE_NAMES,
  type TemplateName,
  TRANSPORTS,
  type Transport,
  templateSpec,
} from "../create/templates.js";
import { shellWord, shownText } from "../create/terminal-text.js";
import { CREATE_ERROR_CODES, CreateError } from "../errors.js";

/** Colours for stdout and stderr, by the rule every bin follows (NO_COLOR, FORCE_COLOR, a terminal). */
const pc = picocolors.createColors(useColor(process.stdout));
const pcErr = picocolors.createColors(useColor(process.stderr));

/** The usage text of the create command. */
export const CREATE_USAGE = `Usage: npm create ocp-provider [dir] -- [options]
       npx create-ocp-provider [dir] [options]

Options:
  --template, -t <name> ${TEMPLATE_NAMES.join(" | ")} (default blank)
  --index <kind>        for --template search-index: ${INDEX_KINDS.join(" | ")} (default lunr)
  --transport <name>    ${TRANSPORTS.join(" | ")} (default stdio)
  --name <name>         npm package name (default: from the directory name)
  --no-install          write the project, do not install its dependencies
  --overwrite           empty a non-empty directory first (.git is kept)
  --local-packages DIR  install ocp-provider and its plugins from the npm pack tarballs in DIR
                        (what npm run create does in a clone, before they are published)
  --yes, -y             take the defaults for everything not given; never prompt
  --help, -h            show this help
  --version             show the version

Without a terminal it never prompts: it takes the flags and the defaults.

Also:
  create-ocp-provider add plugin <${Object.keys(KNOWN_PLUGINS).join("|")}> [--file src/provider.ts]
  create-ocp-provider generate plugin <name> [--kind doc]
`;

const DEFAULT_DIRECTORY = "my-ocp-provider";

/**
 * Set by `npm run create` in a clone of ocp-provider to the clone's root. The commands this
 * command suggests are then the clone's (`npm create ocp-provider` answers E404 before the
 * packages are published), and no project goes inside the clone, where its files would mix
 * with the clone's: its git status, its lint, its test runs.
 */
export const FROM_CLONE_ENV = "OCP_CREATE_FROM_CLONE";
const cloneRoot = (): string | undefined => process.env[FROM_CLONE_ENV] || undefined;

/** A usage error: one line, with the command's synopsis. */
function usage(message: string): CreateError {
  const synopsis =
    cloneRoot() !== undefined
      ? "npm run create -- <dir> [options]; npm run create -- --help says more"
      : "npm create ocp-provider [dir] -- [options]; create-ocp-provider --help says more";
  return new CreateError(CREATE_ERROR_CODES.USAGE, `${message} (usage: ${synopsis})`);
}

/** `path` with its deepest existing ancestor's symbolic links resolved, so that a link into the clone counts as inside. */
function realTarget(path: string): string {
  let existing = path;
  while (!existsSync(existing) && dirname(existing) !== existing) existing = dirname(existing);
  return join(realpathSync(existing), relative(existing, path));
}

/** A directory named `name` beside the clone, as the person would type it from here. */
function besideClone(clone: string, name: string): string {
  return relative(process.cwd(), join(dirname(realpathSync(clone)), name)) || ".";
}

/** Why `directory` cannot hold the project (it is inside the clone we run from), or undefined. */
function insideClone(directory: string): string | undefined {
  const clone = cloneRoot();
  if (clone === undefined) return undefined;
  const root = realpathSync(clone);
  const target = realTarget(resolve(directory));
  const within = relative(root, target);
  if (within === ".." || within.startsWith(`..${sep}`) || isAbsolute(within)) return undefined;
  const better = besideClone(clone, within === "" ? "my-provider" : basename(target));
  return `${shownText(directory)} is inside this clone of ocp-provider, where the project's files would mix with the clone's (git, lint, tests): create it beside the clone, e.g. npm run create -- ${shellWord(better)}`;
}

function refuseInsideClone(directory: string): void {
  const problem = insideClone(directory);
  if (problem !== undefined) throw new CreateError(CREATE_ERROR_CODES.USAGE, problem);
}

function oneOf<T extends string>(flag: string, value: string | undefined, choices: readonly T[]): T | undefined {
  if (value === undefined) return undefined;
  if (!(choices as readonly string[]).includes(value)) {
    throw usage(`--${flag} must be one of ${choices.join(", ")}, not '${value}'`);
  }
  return value as T;
}

/** The options of the create command (exported for the test of its help against them). */
export const CREATE_OPTIONS = {
  template: { type: "string", short: "t" },
  index: { type: "string" },
  transport: { type: "string" },
  name: { type: "string" },
  "no-install": { type: "boolean", default: false },
  overwrite: { type: "boolean", default: false },
  "local-packages": { type: "string" },
  yes: { type: "boolean", short: "y", default: false },
  help: { type: "boolean", short: "h", default: false },
} as const;

/** The flags, parsed and checked; undefined where the person gave nothing. */
export function parseCreateArgs(args: string[]) {
  let parsed: ReturnType<typeof parseArgs<{ args: string[]; allowPositionals: true; options: typeof CREATE_OPTIONS }>>;
  try {
    parsed = parseArgs({ args, allowPositionals: true, options: CREATE_OPTIONS });
  } catch (error) {
    throw usage(argsErrorMessage(error) ?? (error as Error).message);
  }
  const { values, positionals } = parsed;
  if (positionals.length > 1)
    throw usage(`expected one directory, got ${positionals.length}: ${positionals.join(" ")}`);
  const template = oneOf("template", values.template, TEMPLATE_NAMES);
  const index = oneOf("index", values.index, INDEX_KINDS);
  if (index !== undefined && template !== undefined && template !== "search-index") {
    throw usage("--index applies to --template search-index only");
  }
  if (values.name !== undefined) {
    const problem = invalidPackageName(values.name);
    if (problem !== undefined) throw usage(problem);
  }
  return {
    directory: positionals[0],
    template,
    index,
    transport: oneOf("transport", values.transport, TRANSPORTS),
    name: values.name,
    install: !values["no-install"],
    overwrite: values.overwrite,
    localPackages: values["local-packages"],
    yes: values.yes,
    help: values.help,
  };
}

/** Prompts for what the flags left open (a terminal only). Throws CANCELLED when the person cancels. */
async function ask(flags: ReturnType<typeof parseCreateArgs>): Promise<CreateOptions> {
  function answer<T>(value: T): Exclude<T, symbol> {
    if (prompts.isCancel(value)) throw new CreateError(CREATE_ERROR_CODES.CANCELLED, "cancelled: nothing was written");
    return value as Exclude<T, symbol>;
  }
  prompts.intro(pc.inverse(" create-ocp-provider "));
  const clone = cloneRoot();
  const suggested = clone === undefined ? DEFAULT_DIRECTORY : besideClone(clone, DEFAULT_DIRECTORY);
  const directory =
    flags.directory ??
    answer(
      await prompts.text({
        message: "Where should the project go?",
        placeholder: suggested,
        defaultValue: suggested,
        validate: (value) => insideClone(value || suggested),
      }),
    );
  const template =
    flags.template ??
    answer(
      await prompts.select<TemplateName>({
        message: "Which template?",
        options: TEMPLATE_NAMES.map((name) => ({ value: name, label: name, hint: templateSpec(name).hint })),
        initialValue: "blank",
      }),
    );
  const index =
    template !== "search-index"
      ? undefined
      : (flags.index ??
        answer(
          await prompts.select<IndexKind>({
            message: "Which kind of index does it wrap?",
            options: [
              { value: "lunr", label: "lunr", hint: "a lunr index JSON, such as mkdocs' search_index.json" },
              { value: "sqlite", label: "sqlite", hint: "an SQLite FTS5 table" },
              { value: "http", label: "http", hint: "an HTTP search endpoint answering JSON hits" },
            ],
            initialValue: "lunr",
          }),
        ));
  const transport =
    flags.transport ??
    answer(
      await prompts.select<Transport>({
        message: "How do hosts reach it?",
        options: [
          { value: "stdio", label: "stdio", hint: "the host spawns it; most hosts do" },
          { value: "http", label: "http", hint: "streamable HTTP on 127.0.0.1:8080" },
        ],
        initialValue: "stdio",
      }),
    );
  let name = flags.name ?? packageNameFrom(directory);
  if (invalidPackageName(name) !== undefined) {
    name = answer(
      await prompts.text({
        message: "Package name?",
        initialValue: name,
        validate: (v) => invalidPackageName(v ?? ""),
      }),
    );
  }
  let overwrite = flags.overwrite;
  const present = await occupants(directory);
  if (!overwrite && present !== undefined && present.length > 0) {
    overwrite = answer(
      await prompts.confirm({
        message: `${shownText(directory)} is not empty (${present.length} entries). Remove them and continue?`,
        initialValue: false,
      }),
    );
    if (!overwrite) throw new CreateError(CREATE_ERROR_CODES.CANCELLED, "cancelled: nothing was written");
  }
  return {
    directory,
    template,
    index,
    transport,
    name,
    install: flags.install,
    overwrite,
    localPackages: flags.localPackages,
  };
}

/** The commands to run next, for a person: the project's README's commands, after cd and install. */
export function nextSteps(project: CreatedProject, cwd = process.cwd()): string {
  const pm = project.packageManager;
  const where = relative(cwd, project.directory) || ".";
  const steps = readmeSteps(project.template, project.index, project.transport);
  const lines = [
    ...(where === "." ? [] : [`cd ${shellWord(where)}`]),
    ...(project.installed ? [] : [`${pm} install`]),
    ...readmeCommands(steps, pm).split("\n"),
  ];
  return lines.map((line) => `  ${line}`).join("\n");
}

/**
 * Runs the create command; resolves to the exit code. With `checkOnly`, it makes every check
 * that needs no answer from a person (the flags; without a terminal, the directory and the
 * package name) and stops there: `npm run create` does so before its slow building and packing.
 */
export async function createCommand(args: string[], { checkOnly = false } = {}): Promise<number> {
  // Help wins over any mistake elsewhere on the line.
  const flags = wantsHelp(args) ? undefined : parseCreateArgs(args);
  if (flags === undefined || flags.help) {
    process.stdout.write(CREATE_USAGE);
    return 0;
  }
  const interactive = process.stdin.isTTY === true && process.stdout.isTTY === true && !flags.yes;
  if (flags.directory !== undefined) refuseInsideClone(flags.directory);
  let options: CreateOptions;
  if (interactive) {
    if (checkOnly) return 0;
    options = await ask(flags);
  } else {
    const directory = flags.directory ?? (flags.yes ? DEFAULT_DIRECTORY : undefined);
    if (directory === undefined) {
      const clone = cloneRoot();
      throw usage(
        `no directory given (and no terminal to ask on): ${
          clone === undefined
            ? "npm create ocp-provider my-provider -- --yes"
            : `npm run create -- ${shellWord(insideClone("my-provider") === undefined ? "my-provider" : besideClone(clone, "my-provider"))} --template ${flags.template ?? "blank"}`
        }`,
      );
    }
    refuseInsideClone(directory);
    const problem = invalidPackageName(flags.name ?? packageNameFrom(directory));
    if (problem !== undefined) throw usage(`${problem}: pass --name`);
    // Before "installing…" is said, and before any slow work: a directory in use is refused first.
    await checkTarget(directory, flags.overwrite);
    if (checkOnly) return 0;
    options = { ...flags, directory };
  }
  const packageManager = detectPackageManager();
  process.stderr.write(
    `Creating ${pcErr.bold(shownText(options.directory))} (template ${options.template ?? "blank"}${
      (options.template ?? "blank") === "search-index" ? `/${options.index ?? "lunr"}` : ""
    }, ${options.transport ?? "stdio"})${options.install === false ? "" : `; installing with ${packageManager}`}…\n`,
  );
  const project = await createProject({ ...options, packageManager });
  const summary = `${pc.green("✓")} Created ${pc.bold(project.name)} in ${shownText(project.directory)} (${project.files.length} files).\n\nNext:\n${nextSteps(project)}\n`;
  if (interactive) prompts.outro("Done.");
  process.stdout.write(summary);
  return 0;
}
