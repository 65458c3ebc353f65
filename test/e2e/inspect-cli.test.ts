/**
 * `ocp inspect` and `ocp-inspect` as CI runs them: real processes, real exit
 * codes, `--json` that is nothing but JSON, human output with ✓/✗/– and a
 * verdict, `--query` showing frames and the provider's stderr.
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { assertFixtureBuilt, MISBEHAVING, startListening } from "../conformance/fixture.js";
import { OCP_BIN, REPO } from "../support/child.js";

const INSPECT_BIN = fileURLToPath(new URL("../../framework/bin/ocp-inspect.js", import.meta.url));
const run = promisify(execFile);

async function node(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, args, { cwd: REPO, maxBuffer: 16 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

const ocp = (args: string[]) => node([OCP_BIN, "inspect", ...args]);
const fixture = (mode: string) => ["--", process.execPath, MISBEHAVING, "--misbehave", mode];

beforeAll(assertFixtureBuilt);

describe("ocp inspect --json", () => {
  it("writes only the report, and exits 0 for a conformant provider", async () => {
    const { code, stdout } = await ocp([
      "stdio",
      "--json",
      "--",
      process.execPath,
      OCP_BIN,
      "serve",
      "examples/docs-provider.ts",
    ]);
    const report = JSON.parse(stdout);
    expect(report).toMatchObject({
      transport: "stdio",
      conformant: true,
      tokenizer: "o200k_base",
      provider: { name: "docs" },
    });
    expect(report.checks).toHaveLength(16);
    expect(code).toBe(0);
  });

  it("exits 1 for a provider that fails a check, and the JSON says which", async () => {
    const { code, stdout } = await ocp(["stdio", "--json", "--timeout", "3000", ...fixture("lying-costs")]);
    const report = JSON.parse(stdout);
    expect(report.conformant).toBe(false);
    expect(
      report.checks.filter((check: { status: string }) => check.status === "fail").map((c: { name: string }) => c.name),
    ).toEqual(["budget-honesty"]);
    expect(code).toBe(1);
  });

  it("includes the sample query with --query", async () => {
    const { code, stdout } = await ocp(["stdio", "--json", "--query", "doubled attempt", ...fixture("clean")]);
    const report = JSON.parse(stdout);
    expect(report.sample.query).toMatchObject({ goal: "doubled attempt", max_tokens: 1024, max_frames: 8 });
    expect(report.sample.reply.envelope.result.frames[0].title).toBe("Retry policy");
    expect(code).toBe(0);
  });
});

describe("ocp-inspect, for a person", () => {
  it("prints one line per check with ✓ / ✗ / – and evidence, a verdict, and no colour off a TTY", async () => {
    const { code, stdout } = await node([INSPECT_BIN, "stdio", ...fixture("under-reported-costs")]);
    expect(code).toBe(1);
    expect(stdout).not.toContain("\u001b[");
    expect(stdout).toMatch(/^ ✓ handshake +misbehaving 0\.0\.1-under-reported-costs acked ocp\/1\.0-draft/m);
    expect(stdout).toMatch(/^ ✗ cost-honesty +frame 1 'Retry policy': token_cost \d+ < o200k_base count \d+/m);
    expect(stdout).toMatch(/^ – http-bad-json +HTTP only$/m);
    expect(stdout).toMatch(
      /^NOT CONFORMANT: misbehaving 0\.0\.1-under-reported-costs over stdio failed cost-honesty \(13 passed, 1 failed, 2 skipped/m,
    );
  });

  it("--query shows the frames with cost against the budget, then the provider's stderr", async () => {
    const clean = await ocp(["stdio", "--query", "doubled attempt", ...fixture("clean")]);
    expect(clean.code).toBe(0);
    expect(clean.stdout).toMatch(/^query "doubled attempt" \(max_tokens 1024, max_frames 8\)$/m);
    expect(clean.stdout).toMatch(/^ {2}1\. doc +score 1\.00 +\d+ tok +\[ *\d+\/1024\] +Retry policy$/m);
    expect(clean.stdout).toMatch(/^ {5}cite: retry-policy L1-1$/m);
    expect(clean.stdout).toMatch(/^provider stderr:\n {2}\(nothing\)$/m);
    expect(clean.stdout).toMatch(/^CONFORMANT: misbehaving/m);

    const crash = await ocp(["stdio", "--query", "retry", ...fixture("crash-on-query")]);
    expect(crash.code).toBe(1);
    expect(crash.stdout).toMatch(/no frames: .*the provider exited \(code 1\)/);
    expect(crash.stdout).toMatch(/^ {2}\| Error: misbehaving provider crashed on a query$/m);
  });
});

describe("ocp inspect http", () => {
  it("checks a provider serving HTTP, with its bearer token", async () => {
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
      const good = await ocp(["http", server.url, "--token", "s3cret", "--json"]);
      expect(JSON.parse(good.stdout)).toMatchObject({ transport: "http", conformant: true });
      expect(good.code).toBe(0);
      const refused = await node([INSPECT_BIN, "http", server.url]);
      expect(refused.code).toBe(1);
      expect(refused.stdout).toMatch(
        /^ ✗ handshake +answered the handshake with 'error': 'missing or wrong bearer token' \(H1\)$/m,
      );
    } finally {
      server.stop();
    }
  });
});

describe("the README's CI one-liner", () => {
  it("runs as written against this repository's example, and says conformant", async () => {
    const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
    const section = /## Prove your provider conformant\n[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? "";
    const line = section
      .split("\n")
      .find((l) => l.includes("ocp-inspect stdio") && l.includes("examples/docs-provider.ts"));
    expect(line).toBeDefined();
    const command = (line as string).replace(/\s+#.*$/, "");
    const { stdout } = await run("sh", ["-c", command], { cwd: REPO });
    expect(stdout).toMatch(/^CONFORMANT: docs \d/m);
  });
});

describe("usage errors exit 2", () => {
  it.each([
    [[], /Usage:/],
    [["stdio"], /stdio needs the provider's command after --/],
    [["stdio", "node", "x.js"], /put the provider's command after --/],
    [["ftp", "x"], /unknown transport 'ftp'/],
    [["http", "not a url"], /'not a url' is not an http:\/\/ or https:\/\/ URL/],
    [["stdio", "--tokenizer", "bogus", "--", "node"], /unknown tokenizer 'bogus'/],
    [["stdio", "--timeout", "soon", "--", "node"], /--timeout must be a positive whole number/],
    [["stdio", "--frobnicate", "--", "node"], /^ocp-inspect: unknown option '--frobnicate' \(usage: /],
  ])("ocp-inspect %j", async (args, message) => {
    const { code, stdout, stderr } = await node([INSPECT_BIN, ...args]);
    expect(code).toBe(2);
    expect(`${stdout}${stderr}`).toMatch(message);
  });

  it("ocp inspect without arguments shows its usage too", async () => {
    const { code, stdout } = await ocp([]);
    expect(code).toBe(2);
    expect(stdout).toMatch(/^ocp inspect — prove/);
  });
});
