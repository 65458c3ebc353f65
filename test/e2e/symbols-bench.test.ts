/**
 * `ocp bench` on a symbols project whose index is still being built — what `npm run bench`
 * meets in a new project: the real `ocp` runs the bench in its own process over a fresh
 * tree. The index's state is said once on stderr, not once a query (a symbols bench printed
 * 19 identical state lines).
 *
 * The build is slowed by a test hook (every file takes at least 50 ms: 401 files, at least
 * 20 s), so the bench's queries, each waiting for the build only a few seconds, run during
 * it whatever the machine's speed.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type Finished, OCP_BIN, REPO, runNode } from "../test-support/child.js";

async function run(args: string[], env: NodeJS.ProcessEnv): Promise<Finished> {
  return runNode(args, {
    cwd: REPO,
    env: { ...process.env, NO_COLOR: "1", ...env },
    maxBuffer: 64 * 1024 * 1024,
  });
}
const MODULES = 400;

const repo = mkdtempSync(join(tmpdir(), "ocp-symbols-bench-"));
afterAll(() => rmSync(repo, { recursive: true, force: true }));

function writeModules(version: number): void {
  mkdirSync(join(repo, "src", "gen"), { recursive: true });
  for (let i = 0; i < MODULES; i++) {
    writeFileSync(
      join(repo, "src", "gen", `module${i}.ts`),
      `/** Module ${i}, version ${version}. */\nexport class Widget${i} {\n  render(depth: number): string {\n    return "w${i}v${version}".repeat(depth);\n  }\n}\n`,
    );
  }
  writeFileSync(
    join(repo, "src", "checksum.ts"),
    "/** The checksum of a buffer, as hex. */\nexport function computeChecksumDigest(bytes: Uint8Array): string {\n  return String(bytes.length);\n}\n",
  );
}

describe("ocp bench on a symbols project whose index is still being built", () => {
  it("says the index's state once on stderr, not once a query", { timeout: 240_000 }, async () => {
    writeModules(1);
    const goals = join(repo, "goals.txt");
    writeFileSync(goals, "computeChecksumDigest\nhow is the checksum of a buffer computed\n");
    const { code, stdout, stderr } = await run(
      [OCP_BIN, "bench", "test/fixtures/symbols-project-provider.ts", "--goals", goals, "--rounds", "3"],
      { OCP_ROOT: repo, OCP_LOG: "info", OCP_SYMBOLS_TEST_BUILD_DELAY_MS: "50" },
    );
    expect(code, stderr).toBe(0);
    expect(stdout).toMatch(/^per query, ms \(6 queries\)/m);
    const states = stderr
      .split("\n")
      .filter((line) => /still being built|re-checking \d+ files|still checking/.test(line));
    // The bench asked while the first build ran: a query waits for it only so long (answers said so) ...
    expect(stdout).toMatch(/^truncated {11}[1-6] of 6/m);
    // ... and stderr said so once, not once a query.
    expect(states, stderr).toHaveLength(1);
    expect(states[0]).toMatch(
      /the index is still being built \(\d+ (of \d+ files indexed|files indexed, the tree still being listed)\)/,
    );
  });
});
