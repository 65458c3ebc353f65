/**
 * The packaging test: what a user gets from `npm create ocp-provider`, built from the
 * tarballs we would publish. It packs every workspace package, installs the packed
 * create-ocp-provider outside this repository, scaffolds every template with it (and
 * two of them over HTTP too, see HTTP_TOO), installs each project from the local tarballs (nothing of ours from a
 * registry; third-party packages from the npm registry) and runs the project's own
 * `npm test`: typecheck, its tests, and the OCP conformance suite.
 *
 * Projects are created the way `npm run create` in a clone creates them (the packed
 * create-ocp-provider with --local-packages: ours from tarballs in .ocp-packages/). After
 * `npm test`, every command of the project's README runs as written — sample data, query,
 * inspect (no frame check skipped), bench, start; the "Grow it" codemods in one project,
 * which is then tested again. The SQLite and lunr search-index projects are then pointed
 * at an index of one's own, as their README says, and tested again (see OWN_INDEX). (The
 * repository README's own commands, its CI one-liner in a created project among them, run
 * in readme-commands.test.ts.)
 *
 * Slow by nature (npm installs; three templates need better-sqlite3), so nothing
 * runs twice that would do the same thing twice: one install per distinct dependency set,
 * copied to the other transport's project; `npm run query` and `npm run bench`, which load
 * src/provider.ts in-process whatever the transport, run in the stdio project of a template
 * and are checked to have the same command and inputs in the http one; the user's npm
 * cache with --prefer-offline; and at most two jobs at once on two cores. better-sqlite3
 * is not compiled again here: its installs get the build this repository's own install
 * compiled from source (the compile itself is proven by .ci/run's own `npm ci`, on Node 20
 * and on Node 24), as prebuilt binaries; their install scripts still
 * run and the projects' tests load it. Only a repository without that build compiles it
 * here, once, for the installs after it.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { referencePlugins } from "create-ocp-provider";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ownLunrIndex, ownSqliteIndex, type ProjectCommand } from "../test-support/own-index.js";
import { type ReadmeRun, readmeCommands, recordInputs, type Step } from "../test-support/scaffold-readme.js";
import { type Case, limiter, nameOf, npmTest, sh } from "../test-support/scaffold-run.js";
import { cleanEnv, type Done, missedOnlyExitTiming, testMissedOnlyExitTiming, typed } from "../test-support/shell.js";
import { packSqlitePrebuild, SQLITE_PREBUILDS_ENV } from "../test-support/sqlite-prebuild.js";

const REPO = fileURLToPath(new URL("../../", import.meta.url));
/** Workspaces we publish, by package name. */
const PACKAGES: Readonly<Record<string, string>> = {
  "ocp-provider": "framework",
  "ocp-provider-mcp": "bridges/mcp",
  // The reference plugins, as they declare themselves.
  ...Object.fromEntries(referencePlugins().map((plugin) => [plugin.package, `plugins/${plugin.name}`])),
  "create-ocp-provider": "generators",
};
type Ours = string;

/**
 * Templates whose project is also made with `--transport http`. The transport is the base
 * layer's alone (src/main.ts, test/conformance.ts, the README's serving section), the same
 * files whatever the template: an http project of every template re-tested them seven
 * times over, at a minute of CI each. These two keep them honest: blank, grown by a
 * codemod before its install, and symbols, whose server answers while its index builds.
 */
const HTTP_TOO = new Set(["blank", "symbols"]);

const CASES: Case[] = [
  // blank-stdio runs its README's "Grow it" codemods after its tests; blank-http one before installing.
  { template: "blank", transport: "stdio" },
  { template: "blank", transport: "http", codemod: ["add", "plugin", "ripgrep"] },
  ...["lunr", "sqlite", "http"].map((index) => ({ template: "search-index", index, transport: "stdio" as const })),
  // One project per reference plugin that brings a template (its "ocp" declaration says so).
  ...referencePlugins()
    .flatMap(({ name, template }) => (template === undefined ? [] : [name]))
    .flatMap((template) =>
      (HTTP_TOO.has(template) ? (["stdio", "http"] as const) : (["stdio"] as const)).map((transport) => ({
        template,
        transport,
      })),
    ),
];
// OCP_SCAFFOLD_CASES=blank-stdio,symbols-http runs only those (while working on one template).
const only = process.env.OCP_SCAFFOLD_CASES?.split(",");
if (only !== undefined) CASES.splice(0, CASES.length, ...CASES.filter((c) => only.includes(nameOf(c))));

const MINUTES = 60_000;
const tmp = mkdtempSync(join(tmpdir(), "ocp-scaffold-"));
const tarballs = new Map<Ours, string>();
let createBin = "";
let packDir = "";
/** Where the projects are, which of them run their README's "Grow it" commands, and how (see scaffold-readme.ts). */
const readmeRun: ReadmeRun = { cases: CASES, projects: join(tmp, "projects"), grows: "blank-stdio" };

const keep = process.env.OCP_KEEP_SCAFFOLD !== undefined;
/** The node_modules deletions started as projects finish (see {@link removeWhenDone}). */
const removals: Promise<void>[] = [];

afterAll(async () => {
  const seconds = (since: number) => `${((Date.now() - since) / 1000).toFixed(0)} s`;
  process.stderr.write(`scaffold-packages: ${CASES.length} projects in ${seconds(started)}\n`);
  const removing = Date.now();
  await Promise.all(removals);
  if (!keep) rmSync(tmp, { recursive: true, force: true });
  process.stderr.write(`scaffold-packages: the rest removed in ${seconds(removing)}\n`);
}, 10 * MINUTES); // projects' node_modules take a while to delete on a loaded machine

/**
 * Deletes a project's node_modules (and, once, the packed CLI's) as soon as it is done with
 * them, while other projects still run: deleting 160 000 files waits on the disk, not the
 * CPU, and at the end it was a tail of two minutes on a loaded machine. Not before every
 * project has its own node_modules, though, as the later ones copy the first's.
 */
function removeWhenDone(name: string, run: Promise<unknown>, allInstalled: Promise<unknown>): void {
  if (keep) return;
  const gone = (path: string) => rm(path, { recursive: true, force: true });
  removals.push(
    Promise.all([run.catch(() => {}), allInstalled]).then(() => gone(join(tmp, "projects", name, "node_modules"))),
  );
  if (removals.length === 1) removals.push(allInstalled.then(() => gone(join(tmp, "cli"))));
}

const slot = limiter(2);

/** Points our packages at the local tarballs: direct dependencies and, via overrides, transitive ones. */
function useTarballs(dir: string): void {
  const file = join(dir, "package.json");
  const manifest = JSON.parse(readFileSync(file, "utf8"));
  for (const kind of ["dependencies", "devDependencies"]) {
    for (const name of Object.keys(manifest[kind] ?? {})) {
      const tarball = tarballs.get(name as Ours);
      if (tarball !== undefined) manifest[kind][name] = `file:${tarball}`;
    }
  }
  manifest.overrides = Object.fromEntries([...tarballs].map(([name, tarball]) => [name, `file:${tarball}`]));
  writeFileSync(file, `${JSON.stringify(manifest, null, 2)}\n`);
}

/** Every package of ours in a lockfile, and where it was resolved from. */
function oursInLock(dir: string): { path: string; resolved: string | undefined }[] {
  const lock = JSON.parse(readFileSync(join(dir, "package-lock.json"), "utf8")) as {
    packages: Record<string, { resolved?: string }>;
  };
  return Object.entries(lock.packages)
    .filter(([path]) => Object.keys(PACKAGES).some((name) => path.endsWith(`node_modules/${name}`)))
    .map(([path, entry]) => ({ path, resolved: entry.resolved }));
}

/** `npm install`; with `prebuilds`, better-sqlite3's install script finds its binary there. */
const npmInstall = (cwd: string, prebuilds?: string) =>
  sh("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error"], {
    cwd,
    env: prebuilds === undefined ? cleanEnv() : { ...cleanEnv(), [SQLITE_PREBUILDS_ENV]: prebuilds },
  });

/**
 * Where the installs find better-sqlite3 prebuilt (see test/test-support/sqlite-prebuild.ts): the
 * repository's own build, or else the first install's; `undefined` until one is known.
 */
let sqlitePrebuilds: Promise<string | undefined> | undefined;
/** How the installs after the first get better-sqlite3, for the step's name. */
let prebuiltFrom = "the first build";

/** Whether a manifest's dependencies (ours followed into their workspaces) include better-sqlite3. */
function needsSqlite(names: string[]): boolean {
  return names.some((name) => {
    if (name === "better-sqlite3") return true;
    const workspace = PACKAGES[name as Ours];
    if (workspace === undefined) return false;
    const manifest = JSON.parse(readFileSync(join(REPO, workspace, "package.json"), "utf8"));
    return needsSqlite(Object.keys(manifest.dependencies ?? {}));
  });
}

/** One install per dependency set: the first project of a set installs, the others copy its node_modules. */
const installs = new Map<string, Promise<{ dir: string; done: Done }>>();

interface Outcome {
  steps: { step: string; done: Done }[];
  dir: string;
}

/** Creates, installs and tests the project of `c`; calls `installed` once it has its node_modules or has failed before. */
async function scaffoldAndTest(c: Case, installed: () => void): Promise<Outcome> {
  const dir = join(tmp, "projects", nameOf(c));
  const steps: Outcome["steps"] = [];
  const step = async (name: string, done: Promise<Done>) => {
    const result = await done;
    steps.push({ step: name, done: result });
    if (result.code !== 0) throw Object.assign(new Error(`${name} failed`), { outcome: { steps, dir } });
    return result;
  };
  try {
    await createAndInstall(c, dir, step);
  } finally {
    installed();
  }
  await step(
    "npm test",
    slot(() => npmTest(dir)),
  );
  await slot(() => readmeCommands(c, dir, step, readmeRun));
  return { steps, dir };
}

/** Scaffolds the project of `c` into `dir` and gives it its node_modules: installed, or copied from a twin's. */
async function createAndInstall(c: Case, dir: string, step: Step): Promise<void> {
  // As `npm run create` in a clone does: ours from the packed tarballs, copied into the project.
  const flags = ["--template", c.template, "--transport", c.transport, "--no-install", "--local-packages", packDir];
  if (c.index !== undefined) flags.push("--index", c.index);
  await step("create", sh(process.execPath, [createBin, dir, ...flags], { cwd: tmp }));
  if (c.codemod !== undefined)
    await step(c.codemod.join(" "), sh(process.execPath, [createBin, ...c.codemod], { cwd: dir }));
  recordInputs(c, dir);
  // The dependency set: what npm install reads (names, scripts and descriptions differ by transport).
  const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  const key = JSON.stringify(
    ["dependencies", "devDependencies", "overrides", "allowScripts"].map((field) => manifest[field]),
  );
  let install = installs.get(key);
  if (install === undefined) {
    const names = ["dependencies", "devDependencies"].flatMap((field) => Object.keys(manifest[field] ?? {}));
    let name = "npm install";
    if (!needsSqlite(names)) {
      install = slot(async () => ({ dir, done: await npmInstall(dir) }));
    } else if (sqlitePrebuilds === undefined) {
      name = "npm install (compiles better-sqlite3)";
      install = slot(async () => ({ dir, done: await npmInstall(dir) }));
      sqlitePrebuilds = install.then((first) =>
        first.done.code === 0 ? packSqlitePrebuild(join(first.dir, "node_modules"), join(tmp, "prebuilds")) : undefined,
      );
    } else {
      name = `npm install (better-sqlite3 from ${prebuiltFrom})`;
      const prebuilds = sqlitePrebuilds;
      install = prebuilds.then((folder) => slot(async () => ({ dir, done: await npmInstall(dir, folder) })));
    }
    installs.set(key, install);
    await step(
      name,
      install.then((result) => result.done),
    );
  } else {
    const first = await install;
    if (first.done.code !== 0) await step("npm install (shared)", Promise.resolve(first.done));
    const started = Date.now();
    cpSync(join(first.dir, "node_modules"), join(dir, "node_modules"), { recursive: true, verbatimSymlinks: true });
    cpSync(join(first.dir, "package-lock.json"), join(dir, "package-lock.json"));
    await step(
      `copy node_modules of ${first.dir}`,
      Promise.resolve({ code: 0, output: "", stdout: "", ms: Date.now() - started }),
    );
  }
}

function report(outcome: Outcome): string {
  return outcome.steps
    .map(
      ({ step, done }) =>
        `--- ${step}: exit ${done.code} in ${(done.ms / 1000).toFixed(1)} s\n${done.output.slice(-6000)}`,
    )
    .join("\n");
}

const runs = new Map<string, Promise<Outcome>>();
let started = Date.now();

/**
 * Projects that, once their tests and README commands have passed on the sample, are
 * pointed at an index of one's own as their README says ("Your own data", #29 item 4; see
 * test-support/own-index.ts). A project of their own, created and installed again for it,
 * would test the same template and install twice.
 */
const OWN_INDEX: Readonly<
  Record<string, (dir: string, work: string, runs: ProjectCommand, tries: ProjectCommand) => Promise<void>>
> = {
  "search-index-sqlite-stdio": ownSqliteIndex,
  "search-index-lunr-stdio": (dir, work, runs) => ownLunrIndex(dir, work, runs),
};
/** Each OWN_INDEX project's run on its own index, after its run on the sample: its steps' timings. */
const ownRuns = new Map<string, Promise<string>>();

/** Points the project in `dir` at an index of its own (`own`); resolves with the steps' timings. */
async function ownIndex(name: string, dir: string, own: (typeof OWN_INDEX)[string]): Promise<string> {
  const work = join(tmp, "own-index", name);
  mkdirSync(work, { recursive: true });
  const timings: string[] = [];
  const missedOnlyTiming = (output: string) => testMissedOnlyExitTiming(output) || missedOnlyExitTiming(output);
  const tries: ProjectCommand = (command) =>
    slot(async () => {
      let done = await typed(command, dir, cleanEnv(), { timeoutMs: 10 * MINUTES });
      // With other installs and tests on two cores, a provider still loading can miss the exit checks' 2 s: once more.
      if (done.code !== 0 && missedOnlyTiming(done.output))
        done = await typed(command, dir, cleanEnv(), { timeoutMs: 10 * MINUTES });
      timings.push(`${command} ${(done.ms / 1000).toFixed(0)} s`);
      return done;
    });
  const runs: ProjectCommand = async (command) => {
    const done = await tries(command);
    if (done.code !== 0)
      throw new Error(`${name}: ${command} failed (exit ${done.code}):\n${done.output.slice(-8000)}`);
    return done;
  };
  await own(dir, work, runs, tries);
  return timings.join(", ");
}

beforeAll(async () => {
  started = Date.now();
  for (const workspace of Object.values(PACKAGES)) {
    if (!existsSync(join(REPO, workspace, "dist"))) {
      throw new Error(`${workspace}/dist is missing: run \`npm run build\` first (npm test does)`);
    }
  }
  packDir = join(tmp, "tarballs");
  mkdirSync(packDir);
  const workspaces = Object.values(PACKAGES).flatMap((workspace) => ["-w", workspace]);
  const pack = await sh("npm", ["pack", ...workspaces, "--pack-destination", packDir, "--json"], { cwd: REPO });
  if (pack.code !== 0) throw new Error(`npm pack failed:\n${pack.output}`);
  const packed = JSON.parse(pack.stdout) as {
    name: Ours;
    filename: string;
    files: { path: string }[];
  }[];
  for (const entry of packed) tarballs.set(entry.name, join(packDir, entry.filename));
  const creator = packed.find((entry) => entry.name === "create-ocp-provider");
  const shipped = new Set(creator?.files.map((file) => file.path));
  for (const required of [
    "templates/base/src/main.ts.hbs",
    "templates/base/_gitignore",
    "templates/blank/src/provider.ts.hbs",
    "templates/search-index/common/src/adapters/hits.ts",
    "templates/search-index/lunr/src/adapters/lunr-index.ts",
    "templates/search-index/sqlite/src/adapters/sqlite-fts5.ts",
    "templates/search-index/http/src/adapters/http-search.ts",
    "templates/ripgrep/src/provider.ts.hbs",
    "templates/symbols/src/provider.ts.hbs",
    "templates/facts/src/provider.ts.hbs",
    "templates/plugin/src/plugins/__fileName__.ts.hbs",
    "bin/create-ocp-provider.js",
    "dist/cli/main.js",
  ]) {
    if (!shipped.has(required)) throw new Error(`the create-ocp-provider tarball lacks ${required}`);
  }
  // The tokenizers' rank snapshots, which the build writes into dist/ranks/ (docs/tokens.md, "Loading the tables").
  const framework = new Set(packed.find((entry) => entry.name === "ocp-provider")?.files.map((file) => file.path));
  for (const required of ["dist/ranks/o200k_base.v8", "dist/ranks/cl100k_base.v8"]) {
    if (!framework.has(required)) throw new Error(`the ocp-provider tarball lacks ${required}`);
  }

  // `npm create` installs the package and runs its bin: do the same, outside this repository.
  const cli = join(tmp, "cli");
  mkdirSync(cli);
  writeFileSync(join(cli, "package.json"), JSON.stringify({ name: "cli", private: true, dependencies: {} }));
  useTarballs(cli);
  const manifest = JSON.parse(readFileSync(join(cli, "package.json"), "utf8"));
  manifest.dependencies["create-ocp-provider"] = `file:${tarballs.get("create-ocp-provider")}`;
  writeFileSync(join(cli, "package.json"), JSON.stringify(manifest, null, 2));
  const installed = await npmInstall(cli);
  if (installed.code !== 0) throw new Error(`installing the packed create-ocp-provider failed:\n${installed.output}`);
  createBin = join(cli, "node_modules/create-ocp-provider/bin/create-ocp-provider.js");
  // The repository's better-sqlite3, compiled by its install, is the version the templates pin
  // (else prebuild-install finds no matching asset and the install compiles it, as it should).
  const repoBuild = packSqlitePrebuild(join(REPO, "node_modules"), join(tmp, "prebuilds"));
  if (repoBuild !== undefined) {
    sqlitePrebuilds = Promise.resolve(repoBuild);
    prebuiltFrom = "this repository's build";
  }
  const withModules: Promise<void>[] = [];
  for (const c of CASES) {
    let done = () => {};
    withModules.push(
      new Promise<void>((resolve) => {
        done = resolve;
      }),
    );
    runs.set(nameOf(c), scaffoldAndTest(c, done));
  }
  for (const [name, own] of Object.entries(OWN_INDEX)) {
    const run = runs.get(name);
    if (run !== undefined)
      ownRuns.set(
        name,
        run.then(({ dir }) => ownIndex(name, dir, own)),
      );
  }
  const allInstalled = Promise.all(withModules);
  for (const [name, run] of runs) removeWhenDone(name, ownRuns.get(name) ?? run, allInstalled);
  // Nothing is awaited here: the cases run concurrently (bounded), and each test awaits its own.
  for (const run of [...runs.values(), ...ownRuns.values()]) run.catch(() => {});
}, 10 * MINUTES);

describe("npm create ocp-provider, from the packed tarballs", () => {
  it.each(CASES.map((c) => [nameOf(c), c] as const))(
    "%s: scaffolds, installs from the local tarballs, and its npm test passes (conformance included)",
    async (name) => {
      let outcome: Outcome;
      try {
        outcome = await (runs.get(name) as Promise<Outcome>);
      } catch (error) {
        const failed = (error as { outcome?: Outcome }).outcome;
        throw new Error(`${(error as Error).message}\n${failed ? report(failed) : ""}`);
      }
      // Nothing of ours came from a registry.
      for (const { path, resolved } of oursInLock(outcome.dir)) {
        expect(resolved, `${name}: ${path}`).toMatch(/^file:/);
      }
      // biome-ignore lint/suspicious/noControlCharactersInRegex: colour codes, should a tool print them anyway
      const test = (outcome.steps.find((s) => s.step === "npm test")?.done.output ?? "").replace(/\x1b\[[0-9;]*m/g, "");
      // vitest's summary: every test ran and passed (none skipped or todo).
      const [, passed, total] = /^\s*Tests\s+(\d+) passed \((\d+)\)\s*$/m.exec(test) ?? [];
      expect(Number(passed), `${name}: vitest summary`).toBeGreaterThan(0);
      expect(passed).toBe(total);
      const seconds = (ms: number) => `${(ms / 1000).toFixed(0)} s`;
      const timings = outcome.steps.map(({ step, done }) => `${step.split(" of ")[0]} ${seconds(done.ms)}`);
      process.stderr.write(`scaffold-packages: ${name}: ${timings.join(", ")}\n`);
    },
    40 * MINUTES,
  );
});

const OWN_INDEX_CASES = CASES.map(nameOf).filter((name) => Object.hasOwn(OWN_INDEX, name));
// skipIf: with OCP_SCAFFOLD_CASES naming none of them, an empty describe would fail the file.
describe.skipIf(OWN_INDEX_CASES.length === 0)(
  "a search-index project pointed at your own index, as its README says",
  () => {
    it.each(OWN_INDEX_CASES)(
      "%s: another index of one's own in place of the sample; its npm test (and inspect) pass on it",
      async (name) => {
        const timings = await (ownRuns.get(name) as Promise<string>);
        process.stderr.write(`scaffold-packages: ${name}, own index: ${timings}\n`);
      },
      40 * MINUTES,
    );
  },
);
