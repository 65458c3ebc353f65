/**
 * The README's commands, verbatim, from a fresh copy of this repository. Every line of
 * every ```sh block of README.md — read when this file loads, so a command added to the
 * README runs here or fails here — is run through a real `sh -c`, as typed, in order.
 * One test per command, named by it.
 *
 * The fresh copy is the files a commit of this working tree would hold (tracked, and
 * untracked but not ignored: on CI's clean clone that is HEAD, while working it includes
 * the edits not committed yet), in a new git repository (a clone is one: ripgrep honours
 * .gitignore only inside one). No node_modules, no dist. Its install is the README's own
 * first command, `npm ci`, run verbatim: linking this checkout's node_modules would test
 * our install, not a newcomer's (a lockfile out of date, a missing build step in
 * `prepare`, an undeclared dependency would all pass). npm's cache is warm, as a returning
 * user's is, and `npm_config_prefer_offline` (the environment, not the command) keeps npm
 * from revalidating metadata it already has. better-sqlite3 comes prebuilt, as a newcomer
 * with internet access downloads it: its install script runs and finds the binary this
 * checkout's own install compiled (test/test-support/sqlite-prebuild.ts), through the
 * environment too, for `npm ci` and the created project's install alike. Compiling it
 * here again took four minutes of a loaded CI run and proved nothing new: .ci/run's own
 * `npm ci`, on Node 20 and on Node 24, compiles it from source.
 *
 * Long-running commands are started, asked for real (a handshake and a query over the
 * pipe or HTTP; an MCP initialize, tools/list and get_context call through the official
 * SDK), and stopped. The README's port is 8080, and it is used as written: a command on
 * it waits until nothing listens there (another run of this test on the machine, say),
 * and starts again if it lost the race; it fails, naming the port, only if 8080 stays
 * taken for minutes. Commands that cannot run here are in NOT_RUN with the reason.
 */
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { Readable } from "node:stream";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO } from "../test-support/child.js";
import { callTool, connectHttp, textOf } from "../test-support/mcp.js";
import { assertReferenceValid } from "../test-support/reference-schema.js";
import {
  cleanEnv,
  type Done,
  missedOnlyExitTiming,
  type Serving,
  serving,
  shBlocks,
  typed,
} from "../test-support/shell.js";
import { packSqlitePrebuild, SQLITE_PREBUILDS_ENV } from "../test-support/sqlite-prebuild.js";

const MINUTES = 60_000;
const README = readFileSync(join(REPO, "README.md"), "utf8");
/** Every command of the README, in order, with the heading it sits under. */
const COMMANDS = shBlocks(README).flatMap(({ heading, commands }) => commands.map((command) => ({ heading, command })));

/** README commands this test does not run, by exact text, with the reason. */
const NOT_RUN: Record<string, string> = {
  "npm test":
    "the outer run itself: .ci/run runs exactly `npm ci` and `npm test` on a clean clone, and here it would run this test again",
  "npm create ocp-provider my-provider":
    "needs create-ocp-provider on the npm registry, where it is not published yet (E404); its local equivalent, `npm run create`, runs",
  "npm create ocp-provider my-docs -- --template search-index --index lunr --transport stdio --yes":
    "needs create-ocp-provider on the npm registry (E404 before publication); the same template and flags run from the packed tarball in scaffold-packages.test.ts",
};

/** The project the README creates, and where its "in a project" commands run. */
const PROJECT = "my-provider";
/** The README's server the `ocp inspect http` command is pointed at (by its URL). */
const HTTP_SERVER = "npx ocp serve examples/docs-provider.ts --http 8080";
const PORT = 8080;

const env: NodeJS.ProcessEnv = { ...cleanEnv(), npm_config_prefer_offline: "true" };
// The clone and, beside it (npm run create puts no project inside the clone), the project.
const base = mkdtempSync(join(tmpdir(), "ocp-readme-"));
// This checkout's build of better-sqlite3, as the prebuilt binary every install here finds.
const prebuilds = packSqlitePrebuild(join(REPO, "node_modules"), join(base, "prebuilds"));
if (prebuilds !== undefined) env[SQLITE_PREBUILDS_ENV] = prebuilds;
const copy = join(base, "ocp-provider");
const project = join(base, PROJECT);
afterAll(() => {
  rmSync(base, { recursive: true, force: true });
}, 5 * MINUTES);

/** Copies what a commit of this working tree would hold into `copy`, as a new git repository. */
function freshCopy(): void {
  const listed = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], { cwd: REPO });
  for (const path of listed.toString("utf8").split("\0")) {
    const from = join(REPO, path);
    // A tracked file deleted in the working tree is not part of it.
    if (path === "" || !existsSync(from) || lstatSync(from).isDirectory()) continue;
    mkdirSync(dirname(join(copy, path)), { recursive: true });
    cpSync(from, join(copy, path), { verbatimSymlinks: true });
  }
  const git = (...args: string[]) => execFileSync("git", args, { cwd: copy, stdio: "ignore" });
  git("init", "-q");
  git("add", "-A");
  git(
    "-c",
    "user.name=readme",
    "-c",
    "user.email=readme@example.invalid",
    "commit",
    "-qm",
    "fresh copy",
    "--no-verify",
  );
}

beforeAll(freshCopy, 2 * MINUTES);

/** What a problem with a command's outcome reads like; `undefined` when there is none. */
type Problem = string | undefined;
const failure = (command: string, done: Done, problem: string) =>
  new Error(
    `${command}: ${problem} (exit ${done.code}, ${(done.ms / 1000).toFixed(1)} s)\n${done.output.slice(-6000)}`,
  );

/**
 * Runs `command` verbatim in `cwd` and throws, naming it, unless it exits 0 and `check`
 * finds no problem. An `ocp inspect` that missed only the exit timing runs once more.
 */
async function runs(
  command: string,
  cwd: string,
  check: (done: Done) => Problem = () => undefined,
  timeoutMs = 5 * MINUTES,
) {
  let done = await typed(command, cwd, env, { timeoutMs });
  if (/\bocp[- ]inspect\b/.test(command) && done.code !== 0 && missedOnlyExitTiming(done.stdout)) {
    const again = await typed(command, cwd, env, { timeoutMs });
    done = { ...again, output: `(the first run missed only the exit timing; ran again)\n${again.output}` };
  }
  const problem = done.code !== 0 ? "failed" : check(done);
  if (problem !== undefined) throw failure(command, done, problem);
  return done;
}

/** The checks that need frames: with a `--query` the provider answers, none is skipped. */
const FRAME_CHECKS = ["frame-validity", "budget-honesty", "cost-honesty", "kinds-filter", "max-frames"];
const conformant = (done: Done): Problem => (/^CONFORMANT: /m.test(done.stdout) ? undefined : "not CONFORMANT");

/** Resolves once nothing accepts connections on 127.0.0.1:`port`. */
async function portFree(port: number, withinMs: number): Promise<void> {
  const deadline = Date.now() + withinMs;
  const listening = () =>
    new Promise<boolean>((resolve) => {
      const socket = connect(port, "127.0.0.1");
      socket.once("connect", () => resolve(socket.destroy() === socket));
      socket.once("error", () => resolve(false));
    });
  while (await listening()) {
    if (Date.now() > deadline) throw new Error(`port ${port}, which the README names, stayed taken by another process`);
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

/** Starts a README server on the README's port, waiting for the port (and retrying a lost race) for up to 5 min. */
async function onReadmePort(command: string): Promise<{ server: Serving; url: string }> {
  const deadline = Date.now() + 5 * MINUTES;
  for (;;) {
    await portFree(PORT, deadline - Date.now());
    const server = serving(command, copy, env, /listening on (http:\/\/\S+)/);
    try {
      return { server, url: (await server.up)[1] as string };
    } catch (error) {
      await server.stop();
      if (!/EADDRINUSE/.test(server.output()) || Date.now() > deadline) throw error;
    }
  }
}

/**
 * Stops a README server (SIGTERM to its process group, as Ctrl-C would), and throws unless
 * that was enough. Its own exit code is the clean-shutdown tests' business: here the shell
 * and npx between us and it die of the same signal.
 */
async function stopped(command: string, server: Serving): Promise<void> {
  const { killed } = await server.stop();
  if (killed) throw new Error(`${command}: still running 10 s after SIGTERM\n${server.output()}`);
}

const QUERY = {
  type: "query",
  query: { goal: "how are token costs counted?", kinds: [], anchors: [], max_frames: 5, max_tokens: 2000 },
};

/** A query result's frames, after checking the envelope against the reference schema. */
function framesOf(message: unknown): { title: string }[] {
  assertReferenceValid(message);
  expect(message).toMatchObject({ type: "frames" });
  return (message as { result: { frames: { title: string }[] } }).result.frames;
}

/** An MCP client's first meeting with a server: initialize, tools/list, one get_context call with frames. */
async function askMcp(client: Client, goal: string): Promise<void> {
  const { tools } = await client.listTools();
  expect(tools.map((tool) => tool.name)).toContain("get_context");
  const result = await callTool(client, { goal, max_tokens: 2000 });
  expect(result.isError).toBeUndefined();
  expect(textOf(result)).toMatch(/^Quoted context follows\./);
  expect((result.structuredContent as { frames: unknown[] }).frames.length).toBeGreaterThan(0);
}

/** A stdio MCP server started by a README command, through `sh -c` as typed, asked, then closed. */
async function mcpOverStdio(command: string, goal: string): Promise<void> {
  const transport = new StdioClientTransport({
    command: "sh",
    args: ["-c", command],
    cwd: copy,
    env: env as Record<string, string>,
    stderr: "pipe",
  });
  let stderr = "";
  (transport.stderr as Readable | null)?.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  const client = new Client({ name: "readme", version: "0.0.0" });
  try {
    await client.connect(transport);
    await askMcp(client, goal);
  } catch (error) {
    throw new Error(`${command}: ${(error as Error).message}\n${stderr}`);
  } finally {
    await client.close();
  }
}

/** How a command is run and checked, when "exits 0 in the copy's root" is not all. */
const PLAN: Record<string, (command: string) => Promise<unknown>> = {
  // better-sqlite3 is installed from the prebuilt binary (see the top of this file), and loads.
  "npm ci": async (command) => {
    await runs(command, copy, () => undefined, 15 * MINUTES);
    execFileSync(process.execPath, ["-e", "new (require('better-sqlite3'))(':memory:').close()"], { cwd: copy });
  },

  'npx ocp query examples/docs-provider.ts "how are token costs counted?"': (command) =>
    runs(command, copy, (d) => (/^ *1\. doc .*Token costs$/m.test(d.stdout) ? undefined : "no frame 'Token costs'")),

  // stdio: what a host does — a handshake, a query and, once it is answered, EOF: it then exits 0.
  "npx ocp serve examples/docs-provider.ts": async (command) => {
    const server = serving(command, copy, env, /^/);
    try {
      server.send(`${JSON.stringify({ type: "handshake", protocol_version: "ocp/1.0-draft" })}\n`);
      await server.until(/^\{"type":"handshake_ack".*\n/m);
      server.send(`${JSON.stringify(QUERY)}\n`);
      const [reply] = await server.until(/^\{"type":"(frames|error)".*\n/m);
      expect(framesOf(JSON.parse(reply)).map((frame) => frame.title)).toContain("Token costs");
      server.end();
      const code = await Promise.race([
        server.exited,
        new Promise((resolve) => setTimeout(resolve, 30_000, "running")),
      ]);
      if (code !== 0) throw new Error(`exit ${code} on EOF:\n${server.output()}`);
    } catch (error) {
      throw new Error(`${command}: ${(error as Error).message}`);
    } finally {
      await server.stop();
    }
  },

  [HTTP_SERVER]: async (command) => {
    const { server, url } = await onReadmePort(command);
    try {
      expect(url).toBe(`http://127.0.0.1:${PORT}/`);
      const post = async (body: unknown) => {
        const reply = await fetch(url, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(body),
        });
        expect(reply.status).toBe(200);
        return reply.json();
      };
      expect(await post({ type: "handshake", protocol_version: "ocp/1.0-draft" })).toMatchObject({
        type: "handshake_ack",
      });
      expect(framesOf(await post(QUERY)).map((frame) => frame.title)).toContain("Token costs");
    } finally {
      await stopped(command, server);
    }
  },

  "npx ocp mcp examples/docs-provider.ts": (command) => mcpOverStdio(command, "how are token costs counted?"),

  "npx ocp mcp examples/docs-provider.ts --http 8080 --token T": async (command) => {
    const { server, url } = await onReadmePort(command);
    try {
      expect(url).toBe(`http://127.0.0.1:${PORT}/mcp`);
      // The token is required: without it, refused.
      const anonymous = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{}",
      });
      expect(anonymous.status).toBe(401);
      const client = await connectHttp(url, { Authorization: "Bearer T" });
      try {
        await askMcp(client, "how are token costs counted?");
      } finally {
        await client.close();
      }
    } finally {
      await stopped(command, server);
    }
  },

  "npx ocp-ripgrep --root . --mcp": (command) => mcpOverStdio(command, "token budget"),

  'npx ocp query "where is runConformance defined?" -- npx ocp-ripgrep --root framework/src': (command) =>
    runs(command, copy, (d) =>
      /^ 1\. snippet .* export async function runConformance\(/m.test(d.stdout)
        ? undefined
        : "not its definition first",
    ),

  "npm run create -- ../my-provider --template facts": (command) =>
    runs(
      command,
      copy,
      () => (existsSync(join(project, "node_modules/ocp-plugin-facts")) ? undefined : "ocp-plugin-facts not installed"),
      15 * MINUTES,
    ),

  "cd ../my-provider && npm test": (command) =>
    runs(
      command,
      copy,
      (d) => (/^\s*Tests\s+(\d+) passed \(\1\)\s*$/m.test(d.output) ? undefined : "not every test passed"),
      10 * MINUTES,
    ),

  // "In a project": the one the README just created. The codemod ends "Next: npm install";
  // that is done, so the commands after it (the CI one-liner) see the plugin it added.
  "npx create-ocp-provider add plugin ripgrep": async (command) => {
    await runs(command, project, (d) => (/Next: npm install/.test(d.stdout) ? undefined : "no 'Next: npm install'"));
    await runs("npm install --no-audit --no-fund", project);
  },

  "npx create-ocp-provider generate plugin release-notes": (command) =>
    runs(command, project, () =>
      existsSync(join(project, "src/plugins/release-notes.ts")) ? undefined : "no src/plugins/release-notes.ts",
    ),

  "npx ocp-inspect stdio -- node --import tsx src/main.ts": (command) => runs(command, project, conformant),

  "npx ocp-inspect stdio -- npx ocp serve examples/docs-provider.ts": (command) => runs(command, copy, conformant),

  'npx ocp inspect stdio --query "how are token costs counted" -- npx ocp serve examples/docs-provider.ts': (command) =>
    runs(command, copy, (d) => {
      const skipped = FRAME_CHECKS.filter((name) => new RegExp(`^ – ${name} `, "m").test(d.stdout));
      return conformant(d) ?? (skipped.length > 0 ? `frame checks skipped: ${skipped.join(", ")}` : undefined);
    }),

  // Against the README's own HTTP server, on the port the README gives it.
  "npx ocp inspect http http://127.0.0.1:8080/ --json > conformance.json": async (command) => {
    const { server } = await onReadmePort(HTTP_SERVER);
    try {
      await runs(command, copy, (d) => (d.stdout === "" ? undefined : "wrote to stdout despite the redirect"));
    } finally {
      await stopped(HTTP_SERVER, server);
    }
    const report = JSON.parse(readFileSync(join(copy, "conformance.json"), "utf8"));
    expect(report).toMatchObject({ transport: "http", target: `http://127.0.0.1:${PORT}/`, conformant: true });
  },
};

describe("README.md's commands, verbatim, in a fresh copy of the repository", () => {
  it("has a command for every entry of this test's plan and of its not-run list", () => {
    const commands = new Set(COMMANDS.map(({ command }) => command));
    const stale = [...Object.keys(PLAN), ...Object.keys(NOT_RUN), HTTP_SERVER].filter(
      (command) => !commands.has(command),
    );
    expect(stale, "commands this test names that the README no longer has").toEqual([]);
    expect(COMMANDS[0]?.command, "the install comes first").toBe("npm ci");
  });

  it.for(COMMANDS.map(({ heading, command }) => [command, heading] as const))(
    "%s  (## %s)",
    { timeout: 20 * MINUTES },
    async ([command], { skip }) => {
      const reason = NOT_RUN[command];
      if (reason !== undefined) return skip(reason);
      const plan = PLAN[command] ?? ((c: string) => runs(c, copy));
      await plan(command);
    },
  );
});
