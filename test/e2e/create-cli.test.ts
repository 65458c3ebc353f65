/**
 * `create-ocp-provider` as a person or a CI script meets it: the built command in a
 * real child process, stdin from /dev/null (no terminal), checked for exit codes,
 * messages, what it writes — and that it never waits for input.
 */
import { execFile, spawn } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { KNOWN_PLUGINS, TEMPLATE_NAMES } from "create-ocp-provider";
import { afterAll, describe, expect, it } from "vitest";

const BIN = fileURLToPath(new URL("../../generators/bin/create-ocp-provider.js", import.meta.url));
const REPO = fileURLToPath(new URL("../../", import.meta.url));
const runFile = promisify(execFile);
const tmp = mkdtempSync(join(tmpdir(), "ocp-create-cli-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the command with stdin on /dev/null; a run that outlives 20 s is killed and fails the test. */
function run(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<Run> {
  return spawned(process.execPath, [BIN, ...args], options, 20_000);
}

/**
 * `npm run create -- ARGS` as a person types it in `cwd` (npm --prefix finds this clone's
 * script from anywhere, and sets INIT_CWD to `cwd`, as typing it in a clone does).
 */
function runCreate(args: string[], cwd: string): Promise<Run> {
  return spawned("npm", ["run", "--silent", "--prefix", REPO, "create", "--", ...args], { cwd }, 60_000);
}

function spawned(
  command: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv },
  limit: number,
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd ?? tmp,
      env: { ...process.env, ...options.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${command} ${args.join(" ")} hung (waiting for input?)\n${stdout}\n${stderr}`));
    }, limit);
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

const manifestOf = (dir: string) => JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));

describe("create-ocp-provider without a terminal", () => {
  it("prints its usage with --help and exits 0", async () => {
    const { code, stdout } = await run(["--help"]);
    expect(code).toBe(0);
    expect(stdout).toContain("--template, -t <name>");
    // The reference plugins' templates come from their declarations (test/plugins-declared.test.ts).
    expect(stdout).toContain(TEMPLATE_NAMES.join(" | "));
  });

  it("refuses to guess a directory instead of prompting: exit 2 with the command to run", async () => {
    const { code, stderr } = await run([]);
    expect(code).toBe(2);
    expect(stderr).toContain("no directory given");
    expect(stderr).toContain("--yes");
  });

  it("names the problem with a bad flag and exits 2, writing nothing", async () => {
    for (const [args, message] of [
      [["x1", "--template", "vue"], `--template must be one of ${TEMPLATE_NAMES.join(", ")}, not 'vue'`],
      [["x1", "--transport", "ws"], "--transport must be one of stdio, http"],
      [["x1", "--template", "blank", "--index", "sqlite"], "--index applies to --template search-index only"],
      [["x1", "--name", "Bad Name"], "'Bad Name' is not a valid npm package name"],
      [["x1", "--frobnicate"], "unknown option '--frobnicate' (usage: npm create ocp-provider [dir]"],
      [["x1", "x2"], "expected one directory"],
    ] as const) {
      const { code, stderr } = await run([...args]);
      expect(code, args.join(" ")).toBe(2);
      expect(stderr).toContain(message);
    }
    expect(existsSync(join(tmp, "x1"))).toBe(false);
  });

  it("writes a project with the flags it was given and prints the next commands", async () => {
    const { code, stdout } = await run([
      "team-docs",
      "--template",
      "search-index",
      "--index",
      "sqlite",
      "--transport",
      "http",
      "--name",
      "@acme/team-docs",
      "--no-install",
    ]);
    expect(code).toBe(0);
    const dir = join(tmp, "team-docs");
    expect(manifestOf(dir)).toMatchObject({
      name: "@acme/team-docs",
      dependencies: { "better-sqlite3": "12.11.1", "ocp-provider": expect.stringMatching(/^\^\d/) },
      allowScripts: { "better-sqlite3": true },
    });
    expect(readFileSync(join(dir, "src/provider.ts"), "utf8")).toContain('name: "team-docs"');
    expect(readFileSync(join(dir, "src/main.ts"), "utf8")).toContain("runHttp(provider");
    expect(existsSync(join(dir, ".gitignore"))).toBe(true);
    expect(existsSync(join(dir, "src/adapters/sqlite-fts5.ts"))).toBe(true);
    expect(existsSync(join(dir, "src/adapters/lunr-index.ts"))).toBe(false);
    // The README's commands: no step to build the sample (the provider builds it when it first reads it), then a question the sample answers.
    expect(stdout).toMatch(/cd team-docs\n {2}npm install\n {2}npm test +# /);
    expect(existsSync(join(dir, "src/sample-data.ts"))).toBe(true);
    expect(stdout).toContain('npm run query -- "how do I roll back a deploy?"');
  });

  it("refuses a non-empty directory (exit 1, nothing touched) unless --overwrite, which keeps .git", async () => {
    const dir = join(tmp, "occupied");
    mkdirSync(join(dir, ".git"), { recursive: true });
    writeFileSync(join(dir, "notes.txt"), "mine");
    const refused = await run(["occupied", "--no-install"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("is not empty (notes.txt)");
    expect(refused.stderr).toContain("--overwrite");
    expect(readdirSync(dir).sort()).toEqual([".git", "notes.txt"]);

    const overwritten = await run(["occupied", "--no-install", "--overwrite"]);
    expect(overwritten.code).toBe(0);
    expect(existsSync(join(dir, "notes.txt"))).toBe(false);
    expect(existsSync(join(dir, ".git"))).toBe(true);
    expect(manifestOf(dir).name).toBe("occupied");
  });

  it("refuses a non-empty directory before it says anything of creating or installing", async () => {
    const dir = join(tmp, "occupied-quietly");
    mkdirSync(dir);
    writeFileSync(join(dir, "notes.txt"), "mine");
    // Without --no-install: the refusal comes before the line announcing an install.
    const refused = await run(["occupied-quietly", "--template", "blank"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("is not empty (notes.txt)");
    expect(refused.stderr).not.toContain("installing");
    expect(refused.stderr).not.toContain("Creating");
    expect(readdirSync(dir)).toEqual(["notes.txt"]);
  });

  it("names a non-empty directory's entries escaped: a checkout's file names never drive the terminal", async () => {
    const dir = join(tmp, "hostile");
    mkdirSync(dir);
    writeFileSync(join(dir, "invoice\u202etxt.exe"), "");
    writeFileSync(join(dir, "\u001b[2Jwipe"), "");
    const refused = await run(["hostile", "--no-install"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("invoice\\u202etxt.exe");
    expect(refused.stderr).toContain("\\u001b[2Jwipe");
    expect(refused.stderr).not.toContain("\u001b");
    expect(refused.stderr).not.toContain("\u202e");
  });

  it("prints a cd a shell runs as is, whatever the directory is called", async () => {
    const where = "it's a $(touch pwned) `id` dir";
    const { code, stdout } = await run([where, "--no-install", "--name", "quoted-dir"]);
    expect(code).toBe(0);
    const cd = /^ {2}(cd .*)$/m.exec(stdout)?.[1] as string;
    // The line as a person pastes it, in a real shell: it lands in the project and runs nothing.
    const { stdout: landed } = await runFile("sh", ["-c", `${cd} && pwd`], { cwd: tmp });
    expect(landed.trim()).toBe(join(tmp, where));
    expect(existsSync(join(tmp, "pwned"))).toBe(false);
  });

  it("takes every default with --yes, into ./my-ocp-provider", async () => {
    const cwd = join(tmp, "yes");
    mkdirSync(cwd);
    const { code } = await run(["--yes", "--no-install"], { cwd });
    expect(code).toBe(0);
    const manifest = manifestOf(join(cwd, "my-ocp-provider"));
    expect(manifest.name).toBe("my-ocp-provider");
    expect(manifest.description).toContain("blank, stdio");
  });

  it("exits 1 with a clear message when the install fails, and leaves the project written", async () => {
    // A stand-in npm that fails the way a broken registry or compiler does.
    const fakeBin = join(tmp, "fake-bin");
    mkdirSync(fakeBin);
    writeFileSync(join(fakeBin, "npm"), "#!/bin/sh\necho 'npm ERR! network unreachable' >&2\nexit 3\n");
    chmodSync(join(fakeBin, "npm"), 0o755);
    const { code, stderr } = await run(["installs", "--template", "blank"], {
      env: { PATH: `${fakeBin}${delimiter}${process.env.PATH}`, npm_config_user_agent: "" },
    });
    expect(code).toBe(1);
    expect(stderr).toContain("npm ERR! network unreachable");
    expect(stderr).toContain("npm install failed (exit code 3)");
    expect(stderr).toContain("run npm install there");
    // Before publication the registry answers E404 for our packages: the message says what works instead.
    expect(stderr).toContain(
      `create the project from a clone of ocp-provider instead: npm run create -- ${join(tmp, "installs")} --template blank packs the local packages and installs them`,
    );
    expect(existsSync(join(tmp, "installs", "src/provider.ts"))).toBe(true);
  });
});

describe("npm run create, in this clone", () => {
  // Each of these is refused by the checks made before the build and the pack: no test here packs.
  const builtOrPacked = /building the packages|packing them/;

  it("checks the flags, the package name and the directory before building or packing", async () => {
    const occupied = join(tmp, "clone-occupied");
    mkdirSync(occupied);
    writeFileSync(join(occupied, "notes.txt"), "mine");
    for (const [args, code, message] of [
      [["x3", "--template", "vue"], 2, "--template must be one of"],
      [["x3", "--name", "Bad Name"], 2, "'Bad Name' is not a valid npm package name"],
      [["x3", "--frobnicate"], 2, "unknown option '--frobnicate' (usage: npm run create -- <dir> [options]"],
      [["clone-occupied", "--template", "blank"], 1, "clone-occupied is not empty (notes.txt)"],
    ] as const) {
      const refused = await runCreate([...args], tmp);
      expect(refused.code, args.join(" ")).toBe(code);
      expect(refused.stderr).toContain(message);
      expect(refused.stderr).not.toMatch(builtOrPacked);
      expect(refused.stderr).not.toContain("installing");
    }
    expect(existsSync(join(tmp, "x3"))).toBe(false);
    expect(readdirSync(occupied)).toEqual(["notes.txt"]);
  }, 240_000);

  it("without a terminal or a directory, suggests the command that works from a clone, not the unpublished npm create", async () => {
    const { code, stderr } = await runCreate(["--template", "facts"], tmp);
    expect(code).toBe(2);
    expect(stderr).toContain(
      "no directory given (and no terminal to ask on): npm run create -- my-provider --template facts",
    );
    expect(stderr).not.toContain("npm create ocp-provider");
    expect(stderr).not.toMatch(builtOrPacked);
  }, 60_000);

  it("refuses a project inside the clone, naming one beside it, and writes nothing there", async () => {
    const name = `inside-clone-${process.pid}`;
    try {
      for (const cwd of [REPO, join(REPO, "docs")]) {
        const { code, stderr } = await runCreate([name, "--no-install"], cwd);
        expect(code).toBe(2);
        const beside = cwd === REPO ? `../${name}` : `../../${name}`;
        expect(stderr).toContain(`${name} is inside this clone of ocp-provider`);
        expect(stderr).toContain(`create it beside the clone, e.g. npm run create -- ${beside}`);
        expect(stderr).not.toMatch(builtOrPacked);
        expect(existsSync(join(cwd, name))).toBe(false);
      }
    } finally {
      rmSync(join(REPO, name), { recursive: true, force: true });
      rmSync(join(REPO, "docs", name), { recursive: true, force: true });
    }
  }, 120_000);

  it("packs our packages into the project and takes ours from them: dependencies, overrides, the codemods", async () => {
    const dir = join(tmp, "from-clone");
    const { stdout } = await runFile("npm", ["run", "create", "--", dir, "--template", "facts", "--no-install"], {
      cwd: REPO,
    });
    expect(stdout).toContain("✓ Created from-clone");
    const tarballs = readdirSync(join(dir, ".ocp-packages")).sort();
    expect(tarballs.map((file) => file.replace(/-\d+\.\d+\.\d+\.tgz$/, ""))).toEqual([
      "create-ocp-provider",
      "ocp-plugin-facts",
      "ocp-plugin-ripgrep",
      "ocp-plugin-symbols",
      "ocp-provider",
      "ocp-provider-mcp",
    ]);
    const spec = (name: string) => `file:.ocp-packages/${tarballs.find((file) => file.startsWith(`${name}-`))}`;
    const manifest = manifestOf(dir);
    expect(manifest.dependencies).toMatchObject({
      "ocp-provider": spec("ocp-provider"),
      "ocp-plugin-facts": spec("ocp-plugin-facts"),
    });
    expect(manifest.devDependencies["create-ocp-provider"]).toBe(spec("create-ocp-provider"));
    expect(manifest.overrides["ocp-plugin-ripgrep"]).toBe(spec("ocp-plugin-ripgrep"));
    expect(readFileSync(join(dir, "README.md"), "utf8")).toContain("install from the tarballs in `.ocp-packages/`");
    // A plugin added later installs from its tarball too, so "Next: npm install" works before publication.
    const added = await run(["add", "plugin", "symbols"], { cwd: dir });
    expect(added.code).toBe(0);
    expect(manifestOf(dir).dependencies["ocp-plugin-symbols"]).toBe(spec("ocp-plugin-symbols"));
  }, 120_000);
});

describe("create-ocp-provider on a terminal", () => {
  it("asks for what the flags left open, with arrow keys and Enter, then writes the project", async () => {
    // `script` gives the command a real pseudo-terminal; we type as a person would, after each question shows.
    // A pseudo-terminal starts with no size, and prompts wrap at its width: give it one.
    const command = `stty cols 120 rows 40; exec "${process.execPath}" "${BIN}" --no-install`;
    const child = spawn("script", ["-qfec", command, "/dev/null"], {
      cwd: tmp,
      stdio: ["pipe", "pipe", "pipe"],
    });
    let screen = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      screen += chunk;
    });
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    const answer = async (question: string, keys: string) => {
      const deadline = Date.now() + 15_000;
      while (!screen.includes(question)) {
        if (Date.now() > deadline) throw new Error(`never asked '${question}':\n${screen}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      child.stdin.write(keys);
    };
    try {
      await answer("Where should the project go?", "tty-project\r");
      await answer("Which template?", "\x1b[B\r"); // one down from blank: search-index
      await answer("Which kind of index does it wrap?", "\x1b[B\r"); // one down from lunr: sqlite
      await answer("How do hosts reach it?", "\r"); // stdio
      expect(await exited).toBe(0);
    } finally {
      child.kill("SIGKILL");
    }
    const dir = join(tmp, "tty-project");
    expect(manifestOf(dir).description).toContain("search-index, stdio");
    expect(existsSync(join(dir, "src/adapters/sqlite-fts5.ts"))).toBe(true);
  });
});

describe("create-ocp-provider add plugin / generate plugin", () => {
  it("adds a plugin package to a generated project once, and says so the second time", async () => {
    expect((await run(["with-rg", "--no-install"])).code).toBe(0);
    const cwd = join(tmp, "with-rg");
    const first = await run(["add", "plugin", "ripgrep"], { cwd });
    expect(first.code).toBe(0);
    expect(first.stdout).toContain("src/provider.ts: added import and plugin for ocp-plugin-ripgrep");
    expect(first.stdout).toContain("Next: npm install");
    const provider = readFileSync(join(cwd, "src/provider.ts"), "utf8");
    expect(provider).toContain('import { ripgrep } from "ocp-plugin-ripgrep";');
    expect(provider).toContain('plugins: [notes(), ripgrep({ root: "." })],');
    expect(manifestOf(cwd).dependencies["ocp-plugin-ripgrep"]).toMatch(/^\^\d/);

    const second = await run(["add", "plugin", "ripgrep"], { cwd });
    expect(second.code).toBe(0);
    expect(second.stdout).toContain("already uses ocp-plugin-ripgrep: nothing to do");
    expect(readFileSync(join(cwd, "src/provider.ts"), "utf8")).toBe(provider);
  });

  it("explains a file without defineProvider (exit 1) and an unknown plugin (exit 2)", async () => {
    writeFileSync(join(tmp, "plain.ts"), "export const x = 1;\n");
    const missing = await run(["add", "plugin", "facts", "--file", "plain.ts"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("no defineProvider({ ... }) call");
    const unknown = await run(["add", "plugin", "elastic"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain(`unknown plugin 'elastic' (expected ${Object.keys(KNOWN_PLUGINS).join(", ")})`);
    expect(unknown.stderr).toMatch(/^create-ocp-provider: .*; create-ocp-provider add --help says more\)\n$/);
  });

  it("generates a plugin with its test and wires it in; refuses to overwrite it", async () => {
    expect((await run(["with-tickets", "--no-install"])).code).toBe(0);
    const cwd = join(tmp, "with-tickets");
    const made = await run(["generate", "plugin", "release-notes", "--kind", "doc"], { cwd });
    expect(made.code).toBe(0);
    expect(made.stdout).toContain("wrote src/plugins/release-notes.ts");
    expect(made.stdout).toContain("wrote test/plugins/release-notes.test.ts");
    const plugin = readFileSync(join(cwd, "src/plugins/release-notes.ts"), "utf8");
    expect(plugin).toContain("export function releaseNotes(): Plugin");
    expect(plugin).toContain('name: "release-notes"');
    const provider = readFileSync(join(cwd, "src/provider.ts"), "utf8");
    expect(provider).toContain('import { releaseNotes } from "./plugins/release-notes.js";');
    expect(provider).toContain("plugins: [notes(), releaseNotes()],");

    const again = await run(["generate", "plugin", "release-notes"], { cwd });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("src/plugins/release-notes.ts already exists");
    expect(readFileSync(join(cwd, "src/provider.ts"), "utf8")).toBe(provider);
    const badName = await run(["generate", "plugin", "Release Notes"], { cwd });
    expect(badName.code).toBe(2);
    expect(badName.stderr).toContain("must be kebab-case");
  });
});
