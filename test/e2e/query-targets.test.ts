/**
 * `ocp query` against a provider that is not a module: a command it spawns as a host
 * does (`ocp query "goal" -- CMD ARGS…`, here the real ocp-ripgrep bin) and a provider
 * listening for HTTP (`ocp query --http URL "goal"`). The answer shows exactly as the
 * in-process `ocp query <module>` shows it, terminal and --json; a provider declaring
 * egress is asked only with --allow-egress; a dishonest answer is dropped, as a host
 * drops it. All real child processes.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assertFixtureBuilt, MISBEHAVING, startListening } from "../conformance/fixture.js";
import { type Finished, OCP_BIN, REPO, runNode } from "../test-support/child.js";

const RIPGREP_BIN = fileURLToPath(new URL("../../plugins/ripgrep/bin/ocp-ripgrep.js", import.meta.url));
const tmp = mkdtempSync(join(tmpdir(), "ocp-query-targets-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
beforeAll(assertFixtureBuilt);

async function ocp(args: string[]): Promise<Finished> {
  return runNode([OCP_BIN, ...args], {
    cwd: REPO,
    env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "" },
    maxBuffer: 16 * 1024 * 1024,
  });
}

describe("ocp query -- CMD ARGS…", () => {
  // The same provider in-process (test/fixtures/ripgrep-provider.ts) and as the packaged bin.
  const bin = ["--", process.execPath, RIPGREP_BIN, "--root", "framework/src/pack"];
  const goal = "packFrames budget";

  it("asks the real ocp-ripgrep bin and shows what in-process shows, as JSON and for a person", {
    timeout: 120_000,
  }, async () => {
    const [spawned, inProcess, spawnedText, inProcessText] = await Promise.all([
      ocp(["query", goal, "--json", "--max-frames", "3", ...bin]),
      ocp(["query", "test/fixtures/ripgrep-provider.ts", goal, "--json", "--max-frames", "3"]),
      ocp(["query", "--max-frames", "3", goal, ...bin]),
      ocp(["query", "test/fixtures/ripgrep-provider.ts", goal, "--max-frames", "3"]),
    ]);
    expect(spawned.code, spawned.stderr).toBe(0);
    const result = JSON.parse(spawned.stdout);
    expect(result.frames.length).toBeGreaterThan(0);
    // The file that defines packFrames is among the frames shipped, with its lines (frames come in the packer's order).
    expect(result.frames.map((frame: { citation_label: string }) => frame.citation_label)).toContainEqual(
      expect.stringMatching(/^pack\.ts L\d+-\d+$/),
    );
    expect(spawned.stdout).toBe(inProcess.stdout);
    expect(spawnedText.code, spawnedText.stderr).toBe(0);
    expect(spawnedText.stdout).toMatch(/^ 1\. snippet +score \d\.\d\d +\d+ tok +\[ *\d+\/1024\] /m);
    expect(spawnedText.stdout).toBe(inProcessText.stdout);
  });

  it("takes the goal from before --, never from the command's own arguments", async () => {
    const missing = await ocp(["query", ...bin, goal]);
    expect(missing.code).toBe(2);
    expect(missing.stdout).toBe("");
    expect(missing.stderr).toMatch(
      /^ocp query: say the goal before -- <command>: ocp query "<goal>" -- <command> \(usage: /,
    );
    const two = await ocp(["query", "packFrames", "budget", ...bin]);
    expect(two.code).toBe(2);
    expect(two.stderr).toMatch(/one goal, in quotes, before -- <command> \(got 2 words: packFrames budget\)/);
  });

  it("refuses a provider that declares egress unless --allow-egress, sending it nothing", async () => {
    const record = join(tmp, "received.ndjson");
    const egress = ["--", process.execPath, MISBEHAVING, "--misbehave", "clean", "--egress", "--record", record];
    const refused = await ocp(["query", "retry policy", ...egress]);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe("");
    expect(refused.stderr).toMatch(/provider 'misbehaving' declares egress: .*Nothing was sent; .*--allow-egress/);
    // It got the handshake and the shutdown: no query.
    const received = readFileSync(record, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line).type);
    expect(received).toEqual(["handshake", "shutdown"]);

    const allowed = await ocp(["query", "retry policy", "--allow-egress", "--json", ...egress]);
    expect(allowed.code, allowed.stderr).toBe(0);
    const titles = JSON.parse(allowed.stdout).frames.map((frame: { title: string }) => frame.title);
    expect(titles).toContain("Retry policy");
  });

  it("drops an answer over its budget, as a host does, and exits 1", async () => {
    const lying = ["--", process.execPath, MISBEHAVING, "--misbehave", "lying-costs"];
    const { code, stdout, stderr } = await ocp(["query", "retry policy configuration", "--max-tokens", "60", ...lying]);
    expect(code).toBe(1);
    expect(stdout).toBe("");
    expect(stderr).toMatch(/^ocp query: dropped all \d+ frames of 'misbehaving': Σ token_cost \d+ > max_tokens 60/m);
  });

  it("says why when the command cannot start", async () => {
    const { code, stderr } = await ocp([
      "query",
      "x",
      "--",
      process.execPath,
      "-e",
      "console.error('no index'); process.exit(3)",
    ]);
    expect(code).toBe(1);
    expect(stderr).toMatch(/exited \(code 3\).*no index/);
  });
});

describe("ocp query --http URL", () => {
  it("asks a provider serving HTTP, with its token, and shows what in-process shows", {
    timeout: 120_000,
  }, async () => {
    const server = await startListening(process.execPath, [
      OCP_BIN,
      "serve",
      "examples/docs-provider.ts",
      "--http",
      "127.0.0.1:0",
      "--token",
      "s3cret",
    ]);
    try {
      const goal = "how are token costs counted";
      const [remote, inProcess, remoteText, refused] = await Promise.all([
        ocp(["query", "--http", server.url, "--token", "s3cret", goal, "--json"]),
        ocp(["query", "examples/docs-provider.ts", goal, "--json"]),
        ocp(["query", "--http", server.url, "--token", "s3cret", goal, "--max-frames", "2"]),
        ocp(["query", "--http", server.url, goal]),
      ]);
      expect(remote.code, remote.stderr).toBe(0);
      expect(JSON.parse(remote.stdout).frames.length).toBeGreaterThan(0);
      expect(remote.stdout).toBe(inProcess.stdout);
      expect(remoteText.code, remoteText.stderr).toBe(0);
      expect(remoteText.stdout).toMatch(/^2 frames · \d+ \/ 1024 tokens · /m);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/^ocp query: handshake refused: missing or wrong bearer token/m);
    } finally {
      server.stop();
    }
  });

  it("refuses options that do not fit the form, naming them", async () => {
    const cases: [string[], RegExp][] = [
      [["query", "--http", "http://127.0.0.1:9/", "g", "--", "node"], /give a command after -- or --http, not both/],
      [
        ["query", "examples/docs-provider.ts", "g", "--timeout", "5"],
        /--timeout is for a provider after -- or at --http/,
      ],
      [["query", "--http", "not a url", "g"], /'not a url' is not an http:\/\/ or https:\/\/ URL/],
      [["query", "g", "--token", "t", "--", "node"], /--token goes with --http/],
      [
        ["query", "g", "--timeout", "soon", "--", "node"],
        /--timeout must be a positive whole number of ms, not 'soon'/,
      ],
    ];
    for (const [args, message] of cases) {
      const { code, stdout, stderr } = await ocp(args);
      expect({ code, stdout }, stderr).toEqual({ code: 2, stdout: "" });
      expect(stderr).toMatch(message);
    }
  });
});
