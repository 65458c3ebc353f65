/**
 * What a person sees on stderr when something goes wrong, from the real bins: a
 * plugin's error is said once (not by the provider's log and again by the caller),
 * and `ocp inspect` on a terminal says which checks a hanging provider holds up.
 */
import { execFile, spawnSync } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { exitWithin, type Finished, OCP_BIN, REPO, runNode, spawnNode } from "../test-support/child.js";
import { handshake, nextEnvelope } from "../test-support/envelopes.js";

const exec = promisify(execFile);
const count = (text: string, part: string) => text.split(part).length - 1;

async function ocp(args: string[]): Promise<Finished> {
  return runNode([OCP_BIN, ...args], { cwd: REPO });
}

const QUERY = { goal: "anything", kinds: [], anchors: [], max_frames: 4, max_tokens: 200 };
const MESSAGE = "the store is empty: run npm run sample-facts first";

describe("a plugin's error is said once", () => {
  it("ocp query: the plugin's UserError is the one line on stderr, exit 1", async () => {
    const { code, stdout, stderr } = await ocp(["query", "test/fixtures/user-error-provider.ts", "anything"]);
    expect(code).toBe(1);
    expect(stdout).toBe("");
    expect(stderr).toBe(`ocp query: ${MESSAGE}\n`);
  });

  it("ocp serve: the host gets the message, and stderr says it once", async () => {
    const child = spawnNode([OCP_BIN, "serve", "test/fixtures/user-error-provider.ts"]);
    await handshake(child, { timeoutMs: 20_000 });
    child.send({ type: "query", query: QUERY });
    expect(await nextEnvelope(child, 20_000)).toEqual({ type: "error", message: MESSAGE });
    child.send({ type: "shutdown" });
    expect((await exitWithin(child, 20_000)).code).toBe(0);
    expect(count(child.stderr(), MESSAGE)).toBe(1);
  });

  it("when other plugins answer: the frames ship, and each failed plugin is named once", async () => {
    const { code, stdout, stderr } = await ocp(["query", "test/fixtures/failing-plugin-provider.ts", "anything"]);
    expect(code).toBe(0);
    expect(stdout).toContain("Works");
    expect(count(stderr, "the index is being rebuilt")).toBe(1);
    expect(stderr).toMatch(/plugin 'rebuilding': the index is being rebuilt/);
    expect(count(stderr, "index file is corrupt")).toBe(1);
    expect(stderr).toMatch(/plugin 'broken': OCP_ERR_PLUGIN_FAILED: search failed: Error: index file is corrupt/);
  });
});

describe("what a query carries into the provider's log", () => {
  it("ocp serve: a goal with escapes and line breaks stays on its own line, escaped, in every log line", async () => {
    const forged = "x\u001b[2J\n[echo-goal] error: forged line\u202e";
    const child = spawnNode([OCP_BIN, "serve", "test/fixtures/goal-echo-provider.ts"], { OCP_LOG: "info" });
    await handshake(child, { timeoutMs: 20_000 });
    child.send({ type: "query", query: { ...QUERY, goal: forged } });
    expect((await nextEnvelope(child, 20_000)).type).toBe("frames");
    child.send({ type: "shutdown" });
    expect((await exitWithin(child, 20_000)).code).toBe(0);
    const stderr = child.stderr();
    const escaped = "x\\u001b[2J\\n[echo-goal] error: forged line\\u202e";
    // The info line, the refusal and the crash: each says the goal, escaped, on its own line.
    expect(count(stderr, escaped), stderr).toBe(3);
    expect(stderr).not.toContain("\u001b");
    expect(stderr).not.toContain("\u202e");
    expect(stderr.split("\n").filter((line) => line.startsWith("[echo-goal] error: forged"))).toEqual([]);
  });
});

const hasScript = spawnSync("script", ["--version"]).status === 0;

describe("ocp inspect and a provider that hangs", () => {
  const inspect = [
    join(REPO, "framework/bin/ocp-inspect.js"),
    "stdio",
    "--timeout",
    "4000",
    "--",
    process.execPath,
    join(REPO, "framework/dist/conformance/misbehaving-provider.js"),
    "--misbehave",
    "hang-on-query",
  ];

  it.skipIf(!hasScript)(
    "on a terminal, a status line names the checks it is waiting on; in a pipe, nothing",
    async () => {
      // `script` runs the inspector on a real pseudo-terminal, as a person would.
      const quoted = inspect.map((arg) => `'${arg.replaceAll("'", "'\\''")}'`).join(" ");
      const [onTty, piped] = await Promise.all([
        exec("script", ["-qec", quoted, "/dev/null"], { cwd: REPO, env: { ...process.env, NO_COLOR: "1" } }).catch(
          (error: { stdout: string }) => error,
        ),
        runNode(inspect),
      ]);
      const lines = onTty.stdout.split(/\r|\n/);
      expect(lines.some((line) => /checks \d+\/14 done, \d+ s · waiting \d+ s on .*frame-validity/.test(line))).toBe(
        true,
      );
      // The line is erased before the report, which follows on its own.
      expect(onTty.stdout).toContain("\u001b[2Kocp inspect · stdio");
      expect(piped.stdout).toMatch(/NOT CONFORMANT/);
      expect((piped as { stderr: string }).stderr).not.toMatch(/checks \d+\/\d+ done/);
    },
  );
});
