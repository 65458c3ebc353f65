// `npm run create -- DIR [options]`, in a clone of ocp-provider: create a provider
// project before the packages are on a registry. It builds the workspaces, packs every
// package of ours (npm pack, as publishing would), and runs this clone's
// create-ocp-provider with --local-packages, which copies the tarballs into the
// project's .ocp-packages/ and installs ours from there: any template, and the
// codemods (create-ocp-provider itself is a devDependency), work without a registry
// of our packages. Options are create-ocp-provider's (--template, --index, ...).
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const repo = fileURLToPath(new URL("../../", import.meta.url));
const args = process.argv.slice(2);
// INIT_CWD: the directory npm run was typed in, so <dir> is relative to it.
const cwd = process.env.INIT_CWD ?? process.cwd();
// Tells create-ocp-provider (here and in the child) it runs from this clone: it suggests
// npm run create, not the unpublished npm create, and puts no project inside the clone.
process.env.OCP_CREATE_FROM_CLONE = repo;
// Every plugin folder that declares itself (an "ocp" field in its package.json) is packed.
const PLUGINS = readdirSync(join(repo, "plugins"), { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && existsSync(join(repo, "plugins", entry.name, "package.json")))
  .filter((entry) => JSON.parse(readFileSync(join(repo, "plugins", entry.name, "package.json"), "utf8")).ocp)
  .map((entry) => `plugins/${entry.name}`);
const WORKSPACES = ["framework", "bridges/mcp", ...PLUGINS, "generators"];
const npm = process.platform === "win32" ? "npm.cmd" : "npm";
// Progress on stderr: stdout is the generator's (its summary, --help).
const say = (line) => process.stderr.write(`create (from a clone): ${line}\n`);
const run = (command, commandArgs) =>
  spawnSync(command, commandArgs, { cwd: repo, stdio: ["ignore", 2, 2], shell: process.platform === "win32" });
const help = args.includes("--help") || args.includes("-h");
const generatorMain = join(repo, "generators/dist/cli/main.js");

function build() {
  say("building the packages…");
  const built = run(process.execPath, [join(repo, "node_modules/typescript/bin/tsc"), "-b"]);
  if (built.status !== 0) {
    say("the build failed (above); fix it, or run npm ci first");
    process.exit(1);
  }
}

/**
 * The generator's checks of the flags, the name and the directory, in this process, before
 * the seconds of building and packing: a mistake is named at once. They need its build,
 * which npm ci (prepare) leaves; a clone installed without scripts builds first.
 */
async function check() {
  const { main } = await import(pathToFileURL(generatorMain).href);
  const here = process.cwd();
  process.chdir(cwd);
  const code = await main(args, { checkOnly: true });
  process.chdir(here);
  if (code !== 0) process.exit(code);
}

if (help) {
  process.stdout.write(
    "npm run create -- <dir> [options]: create-ocp-provider, installing ocp-provider and its plugins\n" +
      "from this clone (packed into <dir>/.ocp-packages/) instead of a registry.\n\n",
  );
} else if (existsSync(generatorMain)) {
  await check();
  build();
} else {
  build();
  await check();
}
const packed = mkdtempSync(join(tmpdir(), "ocp-packages-"));
let status = 1;
try {
  if (!help) {
    say("packing them…");
    const pack = run(npm, [
      "pack",
      ...WORKSPACES.flatMap((workspace) => ["-w", workspace]),
      "--pack-destination",
      packed,
      "--loglevel=error",
    ]);
    if (pack.status !== 0) {
      say("npm pack failed (above)");
      process.exit(1);
    }
  }
  const created = spawnSync(
    process.execPath,
    [join(repo, "generators/bin/create-ocp-provider.js"), ...args, "--local-packages", packed],
    { cwd, stdio: "inherit" },
  );
  status = created.status ?? 1;
} finally {
  rmSync(packed, { recursive: true, force: true });
}
process.exit(status);
