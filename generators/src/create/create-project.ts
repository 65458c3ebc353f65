/**
 * createProject(): a new provider project in a directory — checked, written from the
 * templates, and installed. The command line (`npm create ocp-provider`) is a thin
 * layer over it; so is any tool that wants to scaffold programmatically.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { copyFile, mkdir, readdir, rm, stat, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { basename, join, parse, resolve } from "node:path";
import { CREATE_ERROR_CODES, CreateError } from "../errors.js";
import { generateFiles } from "./generate.js";
import { templatesDir } from "./template-dir.js";
import {
  type IndexKind,
  OUR_PACKAGES,
  OWN_VERSION,
  packageJsonOf,
  readmeCommands,
  readmeSteps,
  type TemplateName,
  type Transport,
  templateSpec,
} from "./templates.js";
import { shellWord, shownText } from "./terminal-text.js";

/** Package managers a project can be installed with. */
export type PackageManager = "npm" | "pnpm" | "yarn" | "bun";

/** The configuration of {@link createProject}. */
export interface CreateOptions {
  /** Where to create the project (relative to the working directory, or absolute). */
  directory: string;
  /** Default `blank`. */
  template?: TemplateName;
  /** Default `stdio`. */
  transport?: Transport;
  /** For the `search-index` template: which kind of index it wraps. Default `lunr`. */
  index?: IndexKind;
  /** The npm package name; default derived from the directory name. */
  name?: string;
  /** Install dependencies afterwards; default true. */
  install?: boolean;
  /** Empty a non-empty directory first (keeping `.git`); default false, which refuses it. */
  overwrite?: boolean;
  /** Default: the one that ran us (from `npm_config_user_agent`), else npm. */
  packageManager?: PackageManager;
  /**
   * A folder of our packages as `npm pack` tarballs: they are copied into the project's
   * `.ocp-packages/` and installed from there instead of the registry (what
   * `npm run create` in a clone of ocp-provider does, before the packages are published).
   */
  localPackages?: string;
}

/** What {@link createProject} made. */
export interface CreatedProject {
  /** The absolute project directory. */
  directory: string;
  /** The package name. */
  name: string;
  template: TemplateName;
  transport: Transport;
  index: IndexKind;
  /** The files written, relative to the directory. */
  files: string[];
  /** Whether dependencies were installed. */
  installed: boolean;
  packageManager: PackageManager;
  /** Our packages installed from `.ocp-packages/` (empty when they come from the registry). */
  local: string[];
}

/** Where a project made with `localPackages` keeps our tarballs. */
export const LOCAL_PACKAGES_DIR = ".ocp-packages";

/** Copies our tarballs from `from` into the project; resolves to their `file:` specs by package name. */
async function copyLocalPackages(from: string, directory: string): Promise<Map<string, string>> {
  let entries: string[];
  try {
    entries = await readdir(from);
  } catch (error) {
    throw new CreateError(
      CREATE_ERROR_CODES.USAGE,
      `--local-packages: cannot read ${from}: ${(error as Error).message}`,
    );
  }
  const specs = new Map<string, string>();
  await mkdir(join(directory, LOCAL_PACKAGES_DIR), { recursive: true });
  for (const name of OUR_PACKAGES) {
    // npm pack names a tarball <name>-<version>.tgz.
    const tarball = entries.find(
      (entry) => entry.startsWith(`${name}-`) && /^\d.*\.tgz$/.test(entry.slice(name.length + 1)),
    );
    if (tarball === undefined) continue;
    await copyFile(join(from, tarball), join(directory, LOCAL_PACKAGES_DIR, tarball));
    specs.set(name, `file:${LOCAL_PACKAGES_DIR}/${tarball}`);
  }
  if (!specs.has("ocp-provider")) {
    throw new CreateError(CREATE_ERROR_CODES.USAGE, `--local-packages: no ocp-provider-<version>.tgz in ${from}`);
  }
  return specs;
}

const NPM_NAME = /^(?:@[a-z0-9-~][a-z0-9-._~]*\/)?[a-z0-9-~][a-z0-9-._~]*$/;

/** Why `name` is not a usable npm package name, or undefined if it is. */
export function invalidPackageName(name: string): string | undefined {
  if (name.length === 0) return "a package name cannot be empty";
  if (name.length > 214) return "a package name has at most 214 characters";
  if (!NPM_NAME.test(name)) {
    return `'${name}' is not a valid npm package name (lowercase letters, digits, '-', '.', '_', '~'; optionally @scope/)`;
  }
  return undefined;
}

/** A package name made from a directory name: `My Provider` → `my-provider`. */
export function packageNameFrom(directory: string): string {
  const name = basename(resolve(directory))
    .toLowerCase()
    .replace(/[^a-z0-9-._~]+/g, "-")
    .replace(/^[-._~]+|-+$/g, "");
  return name === "" ? "ocp-provider-project" : name;
}

/** The package manager that ran us, from `npm_config_user_agent` ("pnpm/9.1.0 npm/? node/v20…"). */
export function detectPackageManager(userAgent = process.env.npm_config_user_agent ?? ""): PackageManager {
  const name = userAgent.split("/")[0];
  return name === "pnpm" || name === "yarn" || name === "bun" ? name : "npm";
}

/** The entries of a directory that make it "not empty" (`.git` does not), or undefined if it does not exist. */
export async function occupants(directory: string): Promise<string[] | undefined> {
  if (!existsSync(directory)) return undefined;
  if (!(await stat(directory)).isDirectory()) {
    throw new CreateError(CREATE_ERROR_CODES.TARGET_NOT_EMPTY, `${shownText(directory)} exists and is not a directory`);
  }
  return (await readdir(directory)).filter((entry) => entry !== ".git").sort();
}

/**
 * Refuses a directory that is not empty unless `overwrite`: the check createProject makes
 * before it writes, exported so that a command can make it before slower work (packing, installing).
 */
export async function checkTarget(directory: string, overwrite: boolean): Promise<string[] | undefined> {
  const present = await occupants(directory);
  if (present !== undefined && present.length > 0 && !overwrite) {
    // Names another checkout chose: escaped, so that none of them drives the terminal.
    const shown =
      present.slice(0, 5).map(shownText).join(", ") + (present.length > 5 ? `, … (${present.length} entries)` : "");
    throw new CreateError(
      CREATE_ERROR_CODES.TARGET_NOT_EMPTY,
      `${shownText(directory)} is not empty (${shown}): choose another directory, or pass --overwrite to empty it first`,
    );
  }
  return present;
}

async function prepareDirectory(directory: string, overwrite: boolean): Promise<void> {
  const present = await checkTarget(directory, overwrite);
  if (present === undefined) {
    await mkdir(directory, { recursive: true });
    return;
  }
  if (present.length === 0) return;
  if (directory === parse(directory).root || directory === homedir()) {
    throw new CreateError(CREATE_ERROR_CODES.TARGET_NOT_EMPTY, `refusing to empty ${shownText(directory)}`);
  }
  await Promise.all(present.map((entry) => rm(join(directory, entry), { recursive: true, force: true })));
}

/**
 * Runs `<pm> install` in `directory`, its output on our stderr (stdout stays ours).
 * `retry` is what the failure message suggests besides fixing what the installer said.
 */
export function installDependencies(directory: string, packageManager: PackageManager, retry = ""): Promise<void> {
  return new Promise((done, fail) => {
    const child = spawn(packageManager, ["install"], {
      cwd: directory,
      stdio: ["ignore", process.stderr, process.stderr],
      shell: process.platform === "win32", // npm is npm.cmd there
    });
    const failed = (reason: string) =>
      fail(
        new CreateError(
          CREATE_ERROR_CODES.INSTALL_FAILED,
          `${packageManager} install ${reason} in ${shownText(directory)}. The project is written: fix the problem above, then run ${packageManager} install there${retry}`,
        ),
      );
    child.once("error", (error) => failed(`could not start (${error.message})`));
    child.once("exit", (code, signal) => (code === 0 ? done() : failed(`failed (${signal ?? `exit code ${code}`})`)));
  });
}

/** Creates a provider project. Throws a {@link CreateError} with a clear message on any failure. */
export async function createProject(options: CreateOptions): Promise<CreatedProject> {
  const directory = resolve(options.directory);
  const template = options.template ?? "blank";
  const transport = options.transport ?? "stdio";
  const index = options.index ?? "lunr";
  const name = options.name ?? packageNameFrom(directory);
  const packageManager = options.packageManager ?? detectPackageManager();
  const problem = invalidPackageName(name);
  if (problem !== undefined) throw new CreateError(CREATE_ERROR_CODES.USAGE, `${problem}: pass --name`);
  templateSpec(template); // an unknown template is a usage error before anything is written

  await prepareDirectory(directory, options.overwrite === true);
  const files = await generateFiles({
    templatesDir: templatesDir(),
    layers: templateSpec(template).layers(index),
    destination: directory,
    force: options.overwrite === true,
    data: {
      name,
      providerName: name.replace(/^@[^/]+\//, ""),
      template,
      transport,
      index,
      stdio: transport === "stdio",
      http: transport === "http",
      version: OWN_VERSION,
      run: packageManager === "npm" ? "npm run" : packageManager,
      packageManager,
      sampleGoal: templateSpec(template).sampleGoal(index),
      commands: readmeCommands(readmeSteps(template, index, transport), packageManager),
      local: options.localPackages !== undefined,
    },
  });
  const local =
    options.localPackages === undefined
      ? undefined
      : await copyLocalPackages(resolve(options.localPackages), directory);
  const manifest = packageJsonOf({ name, template, transport, index, local });
  await writeFile(join(directory, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  files.push("package.json");
  files.sort();
  if (local !== undefined) files.push(...[...local.values()].map((spec) => spec.slice("file:".length)));
  files.sort();
  const install = options.install ?? true;
  // A registry without our packages answers E404: say how to install them from a clone instead.
  const retry =
    local !== undefined
      ? ` (our packages install from ${LOCAL_PACKAGES_DIR}/, nothing of ours from a registry)`
      : `. If ocp-provider is not on your registry yet (E404), create the project from a clone of ocp-provider instead: npm run create -- ${shellWord(directory)} --template ${template}${
          template === "search-index" ? ` --index ${index}` : ""
        } packs the local packages and installs them`;
  if (install) await installDependencies(directory, packageManager, retry);
  return {
    directory,
    name,
    template,
    transport,
    index,
    files,
    installed: install,
    packageManager,
    local: [...(local?.keys() ?? [])],
  };
}
