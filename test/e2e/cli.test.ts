/** The `ocp` command as a person or a host runs it: real processes, real exit codes. */
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { exitWithin, type Finished, OCP_BIN, REPO, runNode, spawnNode } from "../test-support/child.js";
import { listeningUrl } from "../test-support/listening.js";
import { assertReferenceValid } from "../test-support/reference-schema.js";

async function ocp(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Finished> {
  return runNode([OCP_BIN, ...args], {
    cwd: REPO,
    env: { ...process.env, OCP_LOG: "", ...env },
  });
}

describe("ocp query", () => {
  it("prints frames for a person: kind, score, cost, running total against the budget, title, citation", async () => {
    const { code, stdout } = await ocp([
      "query",
      "examples/docs-provider.ts",
      "token costs tokenizer",
      "--max-tokens",
      "600",
    ]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^ *1\. doc +score \d\.\d\d +\d+ tok +\[ *\d+\/600\] +\S/m);
    expect(stdout).toMatch(/cite: docs\/tokens\.md L\d+-\d+/);
    expect(stdout).toMatch(/\d+ frames? · \d+ \/ 600 tokens · /);
  });

  it("prints only JSON with --json", async () => {
    const { code, stdout } = await ocp([
      "query",
      "examples/docs-provider.ts",
      "packing budget",
      "--json",
      "--max-frames",
      "2",
    ]);
    expect(code).toBe(0);
    const result = JSON.parse(stdout);
    assertReferenceValid({ type: "frames", result });
    expect(result.frames.length).toBeLessThanOrEqual(2);
  });

  it("exits 2 on usage errors and 1 when the module has no provider", async () => {
    expect((await ocp(["query", "examples/docs-provider.ts"])).code).toBe(2);
    expect((await ocp(["query", "examples/docs-provider.ts", "x", "--kinds", "image"])).stderr).toMatch(
      /unknown kind 'image'/,
    );
    expect((await ocp(["query", "examples/docs-provider.ts", "x", "--max-tokens", "-5"])).code).toBe(2);
    expect((await ocp(["frobnicate"])).code).toBe(2);
    const missing = await ocp(["serve", "nowhere.ts"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/no such module: nowhere\.ts/);
    const notProvider = await ocp(["query", "test/test-support/child.ts", "x"]);
    expect(notProvider.code).toBe(1);
    expect(notProvider.stderr).toMatch(/has no provider/);
  });
});

describe("a provider module that throws while loading", () => {
  /** `path:line:column` of the line of `file` marked with `marker`, the column where `token` starts. */
  function located(file: string, marker: string, token: string): string {
    const lines = readFileSync(join(REPO, file), "utf8").split("\n");
    const line = lines.findIndex((text) => text.includes(marker));
    return `${file}:${line + 1}:${(lines[line] as string).indexOf(token) + 1}`;
  }

  it.each([
    [
      "a throw at its top level",
      "query",
      "test/fixtures/throwing-provider.ts",
      "throws here",
      "new ",
      "the index file is missing",
    ],
    [
      "defineProvider refusing it",
      "serve",
      "test/fixtures/misconfigured-provider.ts",
      "refused here",
      "defineProvider",
      "defineProvider: name must be a non-empty string \\(H2\\)",
    ],
    [
      "its factory throwing",
      "query",
      "test/fixtures/throwing-factory-provider.ts",
      "throws here",
      "new ",
      "no such collection: notes",
    ],
  ])("names the file and line in its one-line error: %s", async (_, command, file, marker, token, message) => {
    const args = command === "query" ? ["query", file, "goal"] : ["serve", file];
    const { code, stdout, stderr } = await ocp(args);
    expect(code).toBe(1);
    expect(stdout).toBe("");
    const at = located(file, marker, token).replaceAll(".", "\\.");
    expect(stderr).toMatch(
      new RegExp(`^ocp ${command}: could not load ${file.replaceAll(".", "\\.")}: ${message} \\(at ${at}\\)\\n$`),
    );
  });

  it("prints the whole stack before that line with OCP_LOG=debug", async () => {
    const file = "test/fixtures/misconfigured-provider.ts";
    const { code, stderr } = await ocp(["query", file, "goal"], { OCP_LOG: "debug" });
    expect(code).toBe(1);
    const lines = stderr.trimEnd().split("\n");
    expect(lines.at(-1)).toMatch(
      /^ocp query: could not load .*\(at test\/fixtures\/misconfigured-provider\.ts:\d+:\d+\)$/,
    );
    expect(stderr).toMatch(/^caused by: OcpError: defineProvider: name must be a non-empty string/m);
    expect(stderr).toMatch(/^ {4}at .*misconfigured-provider\.ts:\d+:\d+\)?$/m);
  });
});

describe("OCP_LOG=debug on a provider's own bin", () => {
  it("prints the failure's stack before its one line, through the runner every bin shares", async () => {
    const facts = join(REPO, "plugins/facts/bin/ocp-facts.js");
    const missing = join(tmpdir(), "ocp-no-such-store.db");
    const line = /^ocp-facts: no fact store at .*\(OCP_FACTS_NO_STORE\)$/;
    const quiet = await runNode([facts, "query", "--db", missing, "x"], { env: { ...process.env, OCP_LOG: "" } });
    expect(quiet.stderr.trimEnd()).toMatch(line);
    const loud = await runNode([facts, "query", "--db", missing, "x"], { env: { ...process.env, OCP_LOG: "debug" } });
    const lines = loud.stderr.trimEnd().split("\n");
    expect(lines.at(-1)).toMatch(line);
    expect(lines[0]).toMatch(/^FactError: no fact store at /);
    expect(lines.slice(1, -1).every((text) => text.startsWith("    at "))).toBe(true);
  });
});

describe("ocp add / ocp generate", () => {
  it("forwards to create-ocp-provider's codemods: a plugin is wired into defineProvider, once", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ocp-add-"));
    try {
      const file = join(dir, "provider.ts");
      copyFileSync(join(REPO, "examples/hello-provider.ts"), file);
      const first = await ocp(["add", "plugin", "ripgrep", "--file", file, "--no-package-json"]);
      expect(first.code).toBe(0);
      const edited = readFileSync(file, "utf8");
      expect(edited).toContain('import { ripgrep } from "ocp-plugin-ripgrep";');
      expect(edited).toMatch(/plugins: \[[\s\S]*ripgrep\(/);
      const second = await ocp(["add", "plugin", "ripgrep", "--file", file, "--no-package-json"]);
      expect(second.code).toBe(0);
      expect(readFileSync(file, "utf8")).toBe(edited);
      // Help and errors name the command typed, not the package that runs it.
      const unknown = await ocp(["add", "plugin", "nonesuch", "--file", file]);
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toMatch(/^ocp add: unknown plugin 'nonesuch' .*; ocp add --help says more\)\n$/);
      const help = await ocp(["generate", "--help"]);
      expect(help.stdout).toMatch(/^ {2}ocp add plugin </m);
      expect(help.stdout).toMatch(/^ {2}ocp generate plugin <name>/m);
      expect(help.stdout).not.toContain("create-ocp-provider");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("ocp serve", () => {
  it("keeps stdout for envelopes: console and raw writes of the module go to stderr", async () => {
    const child = spawnNode([OCP_BIN, "serve", "test/fixtures/noisy-provider.ts"]);
    child.send({ type: "handshake", protocol_version: "ocp/1.0-draft" });
    child.send({ type: "query", query: { goal: "g", kinds: [], anchors: [], max_frames: 1, max_tokens: 50 } });
    child.send({ type: "shutdown" });
    expect((await exitWithin(child, 5000)).code).toBe(0);
    expect(child.lines).toHaveLength(2);
    for (const line of child.lines) assertReferenceValid(JSON.parse(line));
    expect(child.stderr()).toContain("noise at import");
    expect(child.stderr()).toContain("raw noise in search");
    expect(child.stderr()).toContain("warn noise");
  });
});

describe("ocp serve --http", () => {
  it("refuses cross-site browser requests (403, 415) and serves the origins --allow-origin names", async () => {
    const child = spawnNode([
      OCP_BIN,
      "serve",
      "examples/hello-provider.ts",
      "--http",
      "127.0.0.1:0",
      "--allow-origin",
      "https://app.example",
    ]);
    try {
      const url = await listeningUrl(child, 20_000);
      const post = (headers: Record<string, string>) =>
        fetch(url, {
          method: "POST",
          headers,
          body: JSON.stringify({ type: "handshake", protocol_version: "ocp/1.0-draft" }),
        });
      const json = { "content-type": "application/json" };
      expect((await post({ "content-type": "text/plain", origin: "http://evil.example" })).status).toBe(403);
      expect((await post({ ...json, origin: "http://evil.example" })).status).toBe(403);
      expect((await post({ "content-type": "text/plain" })).status).toBe(415);
      expect((await post({ ...json, origin: "https://app.example" })).status).toBe(200);
      expect((await post(json)).status).toBe(200);
    } finally {
      child.process.kill("SIGTERM");
      expect((await exitWithin(child, 5000)).code).toBe(0);
    }
  });

  it("exits 2 on an --allow-origin that is not an origin, or without --http", async () => {
    const bad = await ocp(["serve", "examples/hello-provider.ts", "--http", "0", "--allow-origin", "app.example"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--allow-origin expects an origin/);
    expect((await ocp(["serve", "examples/hello-provider.ts", "--allow-origin", "https://a.example"])).code).toBe(2);
  });
});
