/**
 * `--mcp` on the reference plugins' commands: `ocp-ripgrep`, `ocp-symbols` and
 * `ocp-facts serve`, each a real child process spawned by the SDK's stdio client. Each
 * lists its tool (the fact store's with its `as_known_at` extension), answers within
 * max_tokens by tiktoken's count, and links its sources.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openFactStore } from "ocp-plugin-facts";
import { ContextQueryResultSchema } from "ocp-provider/wire";
import { afterAll, describe, expect, it } from "vitest";
import { createFixtureTree } from "../../plugins/ripgrep/src/test-support/fixture-tree.js";
import { fixtureTree } from "../../plugins/symbols/src/test-support/fixture-tree.js";
import { REPO } from "../test-support/child.js";
import { callTool, connectStdio, linksOf, referenceCount, textOf } from "../test-support/mcp.js";

const bin = (plugin: string, name: string) => join(REPO, "plugins", plugin, "bin", `${name}.js`);
const cleanups: (() => void)[] = [];
afterAll(() => {
  for (const cleanup of cleanups) cleanup();
});

async function checkServes(args: string[], goal: string, kind: string) {
  const session = await connectStdio(args);
  try {
    const [tool] = (await session.client.listTools()).tools;
    expect(tool?.name).toBe("get_context");
    expect(tool?.inputSchema).toMatchObject({ properties: { kinds: { items: { enum: [kind] } } } });
    const result = await callTool(session.client, { goal, max_tokens: 1200 });
    expect(result.isError, textOf(result)).toBeUndefined();
    expect(referenceCount(textOf(result))).toBeLessThanOrEqual(1200);
    const frames = ContextQueryResultSchema.parse(result.structuredContent).frames;
    expect(frames.length).toBeGreaterThan(0);
    expect(frames.every((frame) => frame.kind === kind)).toBe(true);
    const [link] = linksOf(result);
    expect(link).toBeDefined();
    const read = await session.client.readResource({ uri: link?.uri as string });
    expect((read.contents[0] as { text?: string } | undefined)?.text).toContain(
      frames.find((frame) => frame.uri === link?.uri)?.content.trimEnd(),
    );
    expect(session.transportErrors).toEqual([]);
    return tool;
  } finally {
    await session.close();
  }
}

describe("--mcp on the plugins' commands", () => {
  it("ocp-ripgrep --mcp serves snippets", async () => {
    const tree = createFixtureTree();
    cleanups.push(() => tree.remove());
    await checkServes(
      [bin("ripgrep", "ocp-ripgrep"), "--root", tree.root, "--mcp"],
      "find parseConfigFile budget",
      "snippet",
    );
  });

  it("ocp-symbols --mcp serves symbols", async () => {
    const tree = fixtureTree();
    cleanups.push(() => tree.remove());
    // Built first: while it builds, the plugin answers from what it has indexed so far.
    execFileSync(process.execPath, [bin("symbols", "ocp-symbols"), "--index", "--root", tree.root, "--no-progress"], {
      stdio: "ignore",
    });
    await checkServes(
      [bin("symbols", "ocp-symbols"), "--root", tree.root, "--no-progress", "--mcp"],
      "Where is Config.retry defined?",
      "symbol",
    );
  });

  it("ocp-symbols --mcp during a first build: the answer says it is partial, never that nothing was left out", {
    timeout: 120_000,
  }, async () => {
    const tree = fixtureTree();
    cleanups.push(() => tree.remove());
    for (let i = 0; i < 300; i++)
      tree.write(`gen/module${i}.ts`, `export function part${i}(): number {\n  return ${i};\n}\n`);
    // A test hook: every file of the build takes at least 25 ms, so the build outlasts the query's wait (4 s).
    const session = await connectStdio([bin("symbols", "ocp-symbols"), "--root", tree.root, "--no-progress", "--mcp"], {
      OCP_SYMBOLS_TEST_BUILD_DELAY_MS: "25",
    });
    try {
      const result = await callTool(session.client, { goal: "Where is Config.retry defined?", max_tokens: 1200 });
      expect(result.isError, textOf(result)).toBeUndefined();
      const text = textOf(result);
      expect(referenceCount(text)).toBeLessThanOrEqual(1200);
      expect(text.trimEnd().split("\n").at(-1)).toMatch(
        /^Truncated: yes\. Partial answer, more may match: symbols: the symbol index is still being built \(\d+ (of \d+ files indexed|files indexed, the tree still being listed)\), so matches in the other files are missing; ask again shortly\./,
      );
      expect(text).not.toContain("Nothing that matched was left out");
      expect(ContextQueryResultSchema.parse(result.structuredContent).truncated).toBe(true);
    } finally {
      await session.close();
    }
  });

  it("ocp-facts serve --mcp serves facts and offers as_known_at", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ocp-mcp-facts-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const db = join(dir, "company.db");
    const store = await openFactStore({ db });
    await store.assert({
      subject: "alice",
      predicate: "works_at",
      statement: "alice works at Acme.",
      validFrom: "2020-01-01",
    });
    await store.assert({
      subject: "bob",
      predicate: "works_at",
      statement: "bob works at Globex.",
      validFrom: "2021-01-01",
    });
    await store.close();
    const tool = await checkServes(
      [bin("facts", "ocp-facts"), "serve", "--db", db, "--mcp"],
      "where does alice work",
      "fact",
    );
    expect(tool?.inputSchema.properties?.as_known_at).toMatchObject({ type: "string" });
  });
});
