/** `ocp eval` as a person runs it: a real git repository, a real provider child, real exit codes. */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import type { EvalReport } from "ocp-provider/eval";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OCP_BIN, REPO, runNode } from "../test-support/child.js";
import { type GitFixture, makeGitFixture } from "../test-support/git-fixture.js";

const run = promisify(execFile);
const RIPGREP = ["node", "plugins/ripgrep/bin/ocp-ripgrep.js", "--root", "{root}"];

let fixture: GitFixture;
let scratch: string;
beforeAll(() => {
  fixture = makeGitFixture();
  scratch = mkdtempSync(join(tmpdir(), "ocp-eval-e2e-"));
});
afterAll(() => {
  rmSync(fixture.dir, { recursive: true, force: true });
  rmSync(scratch, { recursive: true, force: true });
});

async function ocpEval(args: string[], env: NodeJS.ProcessEnv = {}) {
  return runNode([OCP_BIN, "eval", ...args], {
    cwd: REPO,
    env: { ...process.env, ...env },
    maxBuffer: 64 * 1024 * 1024,
  });
}

describe("ocp eval over a git history", () => {
  it("asks a real ripgrep child every mined case under every budget and reports ours beside BM25 as pure JSON", async () => {
    const tmp = join(scratch, "tmp");
    mkdirSync(tmp);
    const { code, stdout, stderr } = await ocpEval(
      ["--repo", fixture.dir, "--budget", "256,1024", "--runs", "2", "--json", "--", ...RIPGREP],
      { TMPDIR: tmp },
    );
    expect(code).toBe(0);
    // Progress on stderr: each case with the time so far and, at the mean per case, the time left.
    expect(stderr).toMatch(/^ocp eval: 1\/3 \S+ .*\(\d[^)]*, about \d[^)]* left\)$/m);
    expect(stderr).toMatch(/^ocp eval: 2\/3 \S+ .*\(\d[^)]*, about \d[^)]* left\)$/m);
    expect(stderr).toMatch(/^ocp eval: 3\/3 \S+ .*\(\d+ s\)$/m);
    const report = JSON.parse(stdout) as EvalReport;
    // max_frames is what an agent's host asks by default: the MCP tool's 10.
    expect(report.maxFrames).toBe(10);
    // Three cases, each on its own file: no more gold files than max_frames, so narrow — said at once on stderr.
    expect(report.goldSpread).toMatchObject({ cases: 3, files: 3, narrow: true, goalBlind: { recall: 1, hit: 1 } });
    expect(report.goldSpread.top.map((entry) => entry.cases)).toEqual([1, 1, 1]);
    expect(report.goldSpread.reasons).toContain(
      "3 gold files in all, no more than max_frames 10: one answer cites them all",
    );
    expect(stderr).toMatch(/^ocp eval: narrow gold, read the ratios over BM25 with care .*3 gold files in all/m);
    expect(stderr.indexOf("narrow gold")).toBeLessThan(stderr.indexOf("ocp eval: 1/3"));
    expect(report.provider.name).toBe("ripgrep");
    expect(report.cases.map((c) => c.commit)).toEqual([
      fixture.commits.side,
      fixture.commits.parser,
      fixture.commits.retry,
    ]);
    expect(report.budgets).toEqual([256, 1024]);
    for (const kase of report.cases) {
      for (const row of kase.budgets) {
        expect(row.ours).toHaveLength(2);
        expect(row.bm25).toBeDefined();
        for (const answer of [...row.ours, row.bm25]) {
          expect(answer?.error).toBeUndefined();
          expect(answer?.tokens).toBeLessThanOrEqual(row.budget);
          for (const value of [answer?.recall, answer?.mrr, answer?.ndcg, answer?.hunkRecall, answer?.goldShare]) {
            expect(value).toBeGreaterThanOrEqual(0);
            expect(value).toBeLessThanOrEqual(1);
          }
        }
      }
    }
    // The tree is tiny: at 1024 tokens BM25 ships every window that matches, so it cites every gold file.
    const at1024 = report.summary.find((row) => row.split === "all" && row.budget === 1024);
    expect(at1024?.bm25?.recall).toBe(1);
    // ripgrep finds the retry helper for "Retry failed tasks with exponential backoff", citing it by file URI.
    const retry = report.cases.find((c) => c.commit === fixture.commits.retry);
    expect(retry?.budgets[1]?.ours[0]?.frames.some((f) => f.gold && f.ref.startsWith("src/retry.ts"))).toBe(true);
    expect(report.summary.map((row) => `${row.split}@${row.budget}`)).toEqual([
      "all@256",
      "all@1024",
      "tuned@256",
      "tuned@1024",
      "held-out@256",
      "held-out@1024",
    ]);
    expect(report.spread.map((row) => row.runRecall.length)).toEqual([2, 2]);
    // Every tree was removed.
    expect(readdirSync(tmp)).toEqual([]);
  }, 120_000); // three trees, a ripgrep child each, two budgets twice: past 30 s on a loaded machine

  it("prints the table on stdout without --json: the commits skipped and why, the gold's spread, 100 columns", async () => {
    const { code, stdout } = await ocpEval(["--repo", fixture.dir, "--budget", "512", "--", ...RIPGREP]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^ocp eval: ripgrep /);
    // Every commit but the merge looked at: 3 qualify, and each of the 8 others is counted under its reason.
    expect(stdout).toMatch(/^11 commits looked at, 3 qualifying, 8 skipped:$/m);
    const reasons = [...stdout.matchAll(/^ {2}(\d+) {2}(.+)$/gm)].map((m) => [m[2], Number(m[1])] as const);
    expect(Object.fromEntries(reasons)).toMatchObject({
      "changes no source file": 2, // the readme, the test
      "adds or retypes a source file": 1,
      "changes more than 3 source files": 1,
      "no parent (root commit, or the edge of a shallow clone)": 1,
    });
    expect(reasons.reduce((sum, [, count]) => sum + count, 0)).toBe(8);
    expect(stdout).toMatch(/^3 cases \(\d tuned, \d held out\), max_frames 10,/m);
    expect(stdout).toMatch(/^Gold: 3 files over 3 cases; the commonest, src\/\w+\.ts, in 1 \(33%\)\.$/m);
    expect(stdout).toMatch(/^WARNING: narrow gold/m);
    expect(stdout).toMatch(/\| all +\| 512 +\| \d\.\d\d \/ \d\.\d\d/);
    // Files and lines in two tables, each narrow enough for a terminal.
    expect(stdout).toMatch(/\| split +\| budget +\| file recall +\| × +\| acc@1 /);
    expect(stdout).toMatch(/\| split +\| budget +\| hunk recall +\| × +\| % in gold +\| × +\| % used /);
    expect(stdout).toMatch(/\| all +\| 512 +\| \d\.\d\d \/ \d\.\d\d +\| \d\.\d\d×/);
    expect(Math.max(...stdout.split("\n").map((line) => line.length))).toBeLessThanOrEqual(100);
  }, 120_000); // every commit mined, three trees with a ripgrep child each

  it("fails with exit 1 and the reason when the provider does not start", async () => {
    const { code, stderr } = await ocpEval([
      "--repo",
      fixture.dir,
      "--cases",
      "1",
      "--",
      "node",
      "-e",
      "console.error('cannot serve {root}'); process.exit(3)",
    ]);
    expect(code).toBe(1);
    expect(stderr).toMatch(/the provider does not start: .*cannot serve/);
  });

  it.each([
    [["--repo", "."], /give the provider command after --/],
    [["--repo", ".", "--", "ocp-ripgrep"], /must take the tree's root: put \{root\}/],
    [["--", ...RIPGREP], /--repo PATH is required/],
    [["--cases", "cases.jsonl", "--", ...RIPGREP], /--cases FILE needs --root DIR/],
    [["--repo", ".", "--budget", "2k", "--", ...RIPGREP], /--budget must be a whole number/],
  ])("a usage error exits 2 and says what is wrong: %j", async (args, message) => {
    const { code, stderr } = await ocpEval(args);
    expect(code).toBe(2);
    expect(stderr).toMatch(message);
  });

  it("--help prints the usage and exits 0", async () => {
    const { code, stdout } = await ocpEval(["--help"]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^ocp eval — /);
  });
});

describe("ocp eval with labelled cases", () => {
  it("serves one root for every case, without git", async () => {
    const root = join(scratch, "docs");
    mkdirSync(join(root, "guide"), { recursive: true });
    writeFileSync(join(root, "guide", "retry.md"), "# Retries\n\nFailed tasks are retried with exponential backoff.\n");
    writeFileSync(join(root, "guide", "colors.md"), "# Colours\n\nThe palette has a dark mode.\n");
    const cases = join(scratch, "cases.jsonl");
    writeFileSync(
      cases,
      `${JSON.stringify({ goal: "exponential backoff of failed tasks", gold: ["guide/retry.md"] })}\n` +
        `${JSON.stringify({ goal: "dark mode palette", gold: ["guide/colors.md#L1-3"] })}\n`,
    );
    const { code, stdout, stderr } = await ocpEval([
      "--cases",
      cases,
      "--root",
      root,
      "--budget",
      "512",
      "--json",
      "--",
      ...RIPGREP,
    ]);
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as EvalReport;
    expect(report.source.kind).toBe("labelled");
    // Progress as each case is answered (not all at the end), with the time left.
    expect(stderr).toMatch(/^ocp eval: 1\/2 case-1 .*, about \d[^)]* left\)$/m);
    expect(stderr).toMatch(/^ocp eval: 2\/2 case-2 /m);
    expect(report.cases.map((c) => c.gold)).toEqual([["guide/retry.md"], ["guide/colors.md#L1-3"]]);
    expect(report.cases.map((c) => c.budgets[0]?.bm25?.recall)).toEqual([1, 1]);
    expect(report.cases.map((c) => c.budgets[0]?.ours[0]?.recall)).toEqual([1, 1]);
  });
});

describe("ocp eval of a provider that sends terminal escapes and bidi overrides", () => {
  it("prints its name and version with them as �, never raw", async () => {
    const root = join(scratch, "hostile");
    mkdirSync(root, { recursive: true });
    writeFileSync(join(root, "a.md"), "# A\n\nSome text.\n");
    const cases = join(scratch, "hostile.jsonl");
    writeFileSync(cases, `${JSON.stringify({ goal: "some text", gold: ["a.md"] })}\n`);
    const { code, stdout, stderr } = await ocpEval([
      "--cases",
      cases,
      "--root",
      root,
      "--budget",
      "512",
      "--",
      "node",
      "test/fixtures/terminal-escape-provider.mjs",
    ]);
    expect(code, stderr).toBe(0);
    expect(stdout).toMatch(/^ocp eval: hostile\ufffd\[2J\ufffd\]0;retitled\ufffd\ufffdevil/m);
    const unsafe = /(?![\t\n])[\p{Cc}\p{Zl}\p{Zp}\p{Bidi_Control}]/u;
    expect(stdout).not.toMatch(unsafe);
    expect(stderr).not.toMatch(unsafe);
  });
});

describe("npm run bench -- relevance --help", () => {
  it("prints the usage and runs nothing", async () => {
    const { stdout } = await run(
      process.execPath,
      [join(REPO, "node_modules/tsx/dist/cli.mjs"), "bench/run.ts", "relevance", "--help"],
      {
        cwd: REPO,
      },
    );
    expect(stdout).toMatch(/^npm run bench -- relevance \[--repo PATH\]/);
    expect(stdout).not.toMatch(/## relevance/);
  });
});
