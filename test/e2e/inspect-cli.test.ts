/**
 * `ocp inspect` and `ocp-inspect` as CI runs them: real processes, real exit
 * codes, `--json` that is nothing but JSON, human output with ✓/✗/– and a
 * verdict, `--query` showing frames and the provider's stderr.
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assertFixtureBuilt, MISBEHAVING, startListening } from "../conformance/fixture.js";
import { type Finished, OCP_BIN, REPO, runNode, spawnNode } from "../test-support/child.js";
import { handshake, nextEnvelope } from "../test-support/envelopes.js";

const INSPECT_BIN = fileURLToPath(new URL("../../framework/bin/ocp-inspect.js", import.meta.url));
const run = promisify(execFile);

async function node(args: string[], cwd = REPO): Promise<Finished> {
  return runNode(args, { cwd, maxBuffer: 16 * 1024 * 1024 });
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
    const { code, stdout } = await ocp(["stdio", "--json", "--timeout", "10000", ...fixture("lying-costs")]);
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

describe("a verdict that cannot pass vacuously", () => {
  const RIPGREP_BIN = fileURLToPath(new URL("../../plugins/ripgrep/bin/ocp-ripgrep.js", import.meta.url));
  const FACTS_BIN = fileURLToPath(new URL("../../plugins/facts/bin/ocp-facts.js", import.meta.url));
  const tmp = mkdtempSync(join(tmpdir(), "ocp-inspect-verdict-"));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));
  const FRAME_CHECKS = ["frame-validity", "budget-honesty", "cost-honesty", "kinds-filter", "max-frames"];
  const statusOf = (report: { checks: { name: string; status: string }[] }, name: string) =>
    report.checks.find((check) => check.name === name)?.status;

  it("is NOT VERIFIED, exit 1, when no query returned a frame; --allow-no-frames accepts that", {
    timeout: 180_000,
  }, async () => {
    // A real packaged provider with nothing to serve yet: ocp-ripgrep over an empty directory.
    const empty = join(tmp, "empty");
    mkdirSync(empty);
    const provider = ["--", process.execPath, RIPGREP_BIN, "--root", empty];
    const [text, json, allowed] = await Promise.all([
      node([INSPECT_BIN, "stdio", ...provider]),
      node([INSPECT_BIN, "stdio", "--json", ...provider]),
      node([INSPECT_BIN, "stdio", "--allow-no-frames", ...provider]),
    ]);
    expect(text.code).toBe(1);
    expect(text.stdout).not.toMatch(/^CONFORMANT/m);
    expect(text.stdout).toMatch(
      /^NOT VERIFIED: no query returned frames, so frame-validity, budget-honesty, cost-honesty, kinds-filter, max-frames judged nothing \(ripgrep \S+ over stdio: \d+ passed, 0 failed, 7 skipped/m,
    );
    expect(text.stdout).toMatch(
      /^ – budget-honesty +nothing to check: no frames came back for 'how does it work', .* and \d+ more goals/m,
    );

    expect(json.code).toBe(1);
    const report = JSON.parse(json.stdout);
    expect(report).toMatchObject({ verdict: "not-verified", conformant: false, framesJudged: 0 });
    expect(report.checks.filter((check: { status: string }) => check.status === "fail")).toEqual([]);

    expect(allowed.code).toBe(0);
    expect(allowed.stdout).toMatch(
      /^CONFORMANT: ripgrep \S+ over stdio \(.*; no query returned frames: allowed by --allow-no-frames\)$/m,
    );
  });

  it("finds frames without --query where the generic goals match nothing: the facts template's sample data", {
    timeout: 180_000,
  }, async () => {
    const db = join(tmp, "sample.db");
    const imported = await node([
      FACTS_BIN,
      "import",
      "--db",
      db,
      join(REPO, "templates/facts/data/sample-facts.jsonl"),
    ]);
    expect(imported.code, imported.stderr).toBe(0);
    // The README's CI one-liner, as a facts project runs it: no --query.
    const { code, stdout } = await node([
      INSPECT_BIN,
      "stdio",
      "--json",
      "--",
      process.execPath,
      FACTS_BIN,
      "serve",
      "--db",
      db,
    ]);
    const report = JSON.parse(stdout);
    for (const name of FRAME_CHECKS) expect(statusOf(report, name), name).toBe("pass");
    expect(report.framesJudged).toBeGreaterThan(0);
    expect(report).toMatchObject({ verdict: "conformant", conformant: true });
    expect(code).toBe(0);
  });

  it("probes with the sample goal the project declares in package.json (ocp.sampleGoal)", {
    timeout: 180_000,
  }, async () => {
    // A tree no generic or broad goal matches: only its own word finds it.
    const project = join(tmp, "project");
    mkdirSync(join(project, "notes"), { recursive: true });
    writeFileSync(join(project, "notes/zorblax.txt"), "zorblax quuxes frobnitz\nzorblax wibbles\n");
    const provider = ["--", process.execPath, RIPGREP_BIN, "--root", "notes"];
    const bare = await node([INSPECT_BIN, "stdio", "--json", ...provider], project);
    expect(JSON.parse(bare.stdout)).toMatchObject({ verdict: "not-verified", framesJudged: 0 });
    expect(bare.code).toBe(1);

    writeFileSync(join(project, "package.json"), JSON.stringify({ name: "p", ocp: { sampleGoal: "zorblax" } }));
    const declared = await node([INSPECT_BIN, "stdio", "--json", ...provider], project);
    const report = JSON.parse(declared.stdout);
    for (const name of FRAME_CHECKS) expect(statusOf(report, name), name).toBe("pass");
    expect(report).toMatchObject({ verdict: "conformant", conformant: true });
    expect(declared.code).toBe(0);
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

describe("ocp-inspect on a provider that sends terminal escapes and bidi overrides", () => {
  it("shows them as � wherever it prints what the provider sent: name, frames, messages, stderr, evidence", async () => {
    const hostile = ["--", process.execPath, "test/fixtures/terminal-escape-provider.mjs"];
    const { stdout } = await ocp(["stdio", "--query", "x", ...hostile]);
    expect(stdout).toMatch(/^ {2}1\. doc .* Title \ufffd\[2J\ufffd\]0;retitled\ufffd\ufffdevil\ufffdx/m);
    expect(stdout).toMatch(/^ {2}\| starting \ufffd\[2J/m);
    expect(stdout).toMatch(/^ ✓ handshake +hostile\ufffd\[2J/m);
    expect(stdout).toMatch(/^ ✗ cost-honesty +frame 1 'Title \ufffd\[2J/m);
    expect(stdout).not.toMatch(/(?![\t\n])[\p{Cc}\p{Zl}\p{Zp}\p{Bidi_Control}]/u);
  });
});

describe("ocp-inspect on a provider that cannot start", () => {
  const REASON = "cannot open the index: permission denied";
  it.each([
    ["exits at once", [process.execPath, "-e", `console.error(${JSON.stringify(REASON)}); process.exit(3)`]],
    ["is no command at all", ["/nonexistent/ocp-provider-command"]],
  ])(
    "reports it once on the handshake and marks every other check not run, when the command %s",
    async (_, command) => {
      const { code, stdout } = await node([INSPECT_BIN, "stdio", "--", ...command]);
      expect(code).toBe(1);
      const lines = stdout.split("\n");
      const failed = lines.filter((line) => line.startsWith(" ✗"));
      expect(failed).toHaveLength(1);
      expect(failed[0]).toMatch(
        /^ ✗ handshake +(the provider exited \(code 3\); stderr: cannot open the index|could not start)/,
      );
      const notRun = lines.filter((line) => line.startsWith(" · "));
      expect(notRun).toHaveLength(12);
      for (const line of notRun) expect(line).toMatch(/^ · [\w-]+ +not run: the provider never answered a handshake/);
      // The reason, once (the first line names the command, which holds it too).
      expect(lines.slice(1).join("\n").split(REASON).length - 1).toBeLessThanOrEqual(1);
      expect(stdout).toMatch(
        /^NOT CONFORMANT: the provider over stdio failed handshake \(0 passed, 1 failed, 12 not run, 3 skipped/m,
      );

      const json = JSON.parse((await node([INSPECT_BIN, "stdio", "--json", "--", ...command])).stdout);
      expect(json.conformant).toBe(false);
      const statuses = json.checks.map((check: { status: string }) => check.status);
      expect(statuses.filter((status: string) => status === "not-run")).toHaveLength(12);
    },
  );
});

describe("ocp-inspect on a URL where nothing listens", () => {
  it("reports the refused connection once on the handshake and marks the checks that need the server not run", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const { code, stdout } = await node([INSPECT_BIN, "http", `http://127.0.0.1:${port}/`]);
    expect(code).toBe(1);
    const lines = stdout.split("\n");
    expect(lines.filter((line) => line.startsWith(" ✗"))).toEqual([expect.stringMatching(/^ ✗ handshake /)]);
    expect(lines.filter((line) => line.startsWith(" · "))).toHaveLength(10);
    expect(stdout).toMatch(/failed handshake \(0 passed, 1 failed, 10 not run, 5 skipped/);
  });
});

describe("ocp-inspect evidence", () => {
  it("shortens a provider's messages at a word boundary, with an ellipsis", async () => {
    const provider = [process.execPath, OCP_BIN, "serve", "examples/hello-provider.ts"];
    // The full message the provider gives the malformed-input check's invalid query.
    const child = spawnNode(provider.slice(1));
    await handshake(child);
    child.send({
      type: "query",
      query: { goal: "", kinds: ["image"], anchors: "none", max_frames: -1, max_tokens: "many" },
    });
    const full = String((await nextEnvelope(child)).message);
    child.process.kill();
    expect(full.length).toBeGreaterThan(100); // long enough to be shortened

    const { stdout } = await node([INSPECT_BIN, "stdio", "--", ...provider]);
    const line = stdout.split("\n").find((text) => text.includes("malformed-input-tolerance")) ?? "";
    const shown = /an invalid query \(wrong types, unknown kind\) → error '([^']*)'/.exec(line)?.[1];
    expect(shown, line).toBeDefined();
    expect(shown?.endsWith("…"), shown).toBe(true);
    const kept = (shown as string).slice(0, -1);
    expect(full.startsWith(kept), `${kept} | ${full}`).toBe(true);
    expect(full[kept.length], `cut inside a word: '${kept}' of '${full}'`).toMatch(/[\s,;:]/);
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
