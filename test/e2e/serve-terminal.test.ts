/**
 * A provider served over stdio that a person started on a terminal says so on stderr,
 * in one line — silence looked like a hang — and a host's pipe never sees that line.
 * The terminal is a real pseudo-terminal: util-linux `script` runs the command on one.
 */
import { spawn, spawnSync } from "node:child_process";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { exitWithin, OCP_BIN, REPO, trackChildren } from "../test-support/child.js";

const children = trackChildren();
afterEach(children.killAll);

const HAS_SCRIPT = spawnSync("script", ["--version"]).status === 0;
const RIPGREP_BIN = join(REPO, "plugins/ripgrep/bin/ocp-ripgrep.js");
const quote = (word: string) => `'${word.replaceAll("'", "'\\''")}'`;

/**
 * Runs `node args` on a pseudo-terminal as a person would type at it: a handshake, and
 * once it is answered, a shutdown. Resolves with everything the terminal showed.
 */
function onTerminal(args: string[]): Promise<string> {
  const command = [process.execPath, ...args].map(quote).join(" ");
  const child = spawn("script", ["-qec", command, "/dev/null"], { cwd: REPO, env: { ...process.env, NO_COLOR: "1" } });
  let shown = "";
  let answered = false;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`no handshake_ack within 60 s; the terminal showed:\n${shown}`));
    }, 60_000);
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      shown += chunk;
      if (answered || !shown.includes('"handshake_ack"')) return;
      answered = true;
      child.stdin.write('{"type":"shutdown"}\n');
    });
    child.once("exit", () => {
      clearTimeout(timer);
      resolve(shown);
    });
    child.stdin.write('{"type":"handshake","protocol_version":"ocp/1.0-draft"}\n');
  });
}

describe.skipIf(!HAS_SCRIPT)("serving over stdio on a terminal", () => {
  it("ocp serve says on stderr, in one line, that it waits for a host and how to ask it yourself", async () => {
    const shown = await onTerminal([OCP_BIN, "serve", "examples/hello-provider.ts"]);
    expect(shown).toContain('"handshake_ack"');
    const lines = shown.split(/\r?\n/).filter((line) => line.includes("serving OCP"));
    expect(lines).toEqual([
      'team-notes 1.0.0: serving OCP (ocp/1.0-draft) over stdio, waiting for a host\'s NDJSON envelopes on stdin (Ctrl-D ends). To ask it one question: ocp query examples/hello-provider.ts "<goal>"',
    ]);
  });

  it("so does a provider's own bin (ocp-ripgrep), through the runner every bin shares", async () => {
    const shown = await onTerminal([RIPGREP_BIN, "--root", "framework/src/pack"]);
    expect(shown).toMatch(
      /^ripgrep \S+: serving OCP \(ocp\/1\.0-draft\) over stdio, .*ocp query "<goal>" -- ocp-ripgrep/m,
    );
  });
});

describe("serving over stdio to a host's pipe", () => {
  it("writes no such line", async () => {
    const child = children.spawn([OCP_BIN, "serve", "examples/hello-provider.ts"]);
    child.send({ type: "handshake", protocol_version: "ocp/1.0-draft" });
    await child.nextLine(20_000);
    child.send({ type: "shutdown" });
    expect((await exitWithin(child, 20_000)).code).toBe(0);
    expect(child.stderr()).not.toContain("serving OCP");
  });
});
