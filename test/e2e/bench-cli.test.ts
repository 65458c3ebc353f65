/**
 * `ocp bench` as a person runs it on their own provider, and `npm run bench -- --help`
 * (this repository's suite) printing its usage without running anything.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { createTokenCounter } from "ocp-provider";
import { afterAll, describe, expect, it } from "vitest";
import { type Finished, OCP_BIN, REPO, runNode } from "../test-support/child.js";

const exec = promisify(execFile);
const tmp = mkdtempSync(join(tmpdir(), "ocp-bench-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

async function ocp(args: string[]): Promise<Finished> {
  return runNode([OCP_BIN, ...args], {
    cwd: REPO,
    env: { ...process.env, NO_COLOR: "1" },
  });
}

// The README's provider: two notes, both in every answer, so every number can be worked out here.
const NOTES = ["Deploys run from the release branch.", "Retries back off exponentially, from 100 ms."];

describe("ocp bench", () => {
  it("--json: the queries asked, the time split, the cache, tokens shipped, and each estimate's error", async () => {
    const goals = join(tmp, "goals.txt");
    writeFileSync(goals, "# one goal a line\nhow do retries back off?\n\nwhich branch do deploys run from?\n");
    const { code, stdout, stderr } = await ocp([
      "bench",
      "examples/hello-provider.ts",
      "--goals",
      goals,
      "--rounds",
      "3",
      "--budget",
      "15",
      "--json",
    ]);
    expect(code, stderr).toBe(0);
    const report = JSON.parse(stdout);
    expect(report).toMatchObject({
      provider: { name: "team-notes", tokenizer: "o200k_base" },
      goals: ["how do retries back off?", "which branch do deploys run from?"],
      drawn: false,
      rounds: 3,
      budget: 15,
      queries: 6,
    });
    for (const part of ["search", "counting", "packing", "frames"]) {
      expect(report.time[part].mean).toBeGreaterThanOrEqual(0);
      expect(report.time[part].mean).toBeLessThanOrEqual(report.time.total.mean);
    }
    // Each round asks the same: after the first, every count is a cache hit.
    expect(report.cache.later).toBe(1);
    const exact = createTokenCounter();
    const costs = NOTES.map((note) => exact.count(note));
    // The budget of 15 holds the best note, never both: the core never ships past it.
    expect(report.shipped.max).toBeLessThanOrEqual(15);
    expect(report.shipped.min).toBeGreaterThan(0);
    const bytes4 = NOTES.map((note) => Math.ceil(Buffer.byteLength(note) / 4));
    const errors = bytes4.map((guess, i) => (guess - (costs[i] as number)) / (costs[i] as number));
    const [bytes, words, other] = report.estimates.of;
    expect(report.estimates.frames).toBe(2);
    expect([bytes.name, words.name, other.name]).toEqual(["bytes/4", "words×1.3", "cl100k_base"]);
    expect(bytes.meanError).toBeCloseTo((Math.abs(errors[0] as number) + Math.abs(errors[1] as number)) / 2, 10);
    expect(bytes.bias).toBeCloseTo(((errors[0] as number) + (errors[1] as number)) / 2, 10);
    const cl100k = createTokenCounter({ tokenizer: "cl100k_base" });
    expect(other.totalRatio).toBeCloseTo(
      NOTES.reduce((sum, note) => sum + cl100k.count(note), 0) / costs.reduce((a, b) => a + b, 0),
      10,
    );
    // Packing both notes by an estimate breaks a budget of 15 exactly when the estimate fits both.
    const fitsBoth = (sum: number) => sum <= 15;
    expect(bytes.overPacking.queriesOver > 0).toBe(fitsBoth((bytes4[0] as number) + (bytes4[1] as number)));
  });

  it("draws goals from the provider's own frames, and prints a report for a person", async () => {
    const { code, stdout } = await ocp(["bench", "examples/hello-provider.ts", "--goal", "retries", "--rounds", "1"]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^ocp bench · team-notes 1\.0\.0 · 3 goals \(drawn from its frames\) × 1 rounds/);
    expect(stdout).toMatch(/^ {2}token counting \(exact\) +\d/m);
    expect(stdout).toMatch(/^token count cache {3}\d+\.\d% hits/m);
    expect(stdout).toMatch(/^tokens shipped {6}mean \d+ of 1024/m);
    expect(stdout).toMatch(/^ {2}bytes\/4 +\d+\.\d% +[+-]?\d+\.\d%/m);
    expect(stdout).toMatch(/^ {2}cl100k_base /m);
  });

  it("says what its figures are: the tokenizer's load apart, a cold first round, the truncation max_frames caused", async () => {
    // Drawn goals (drawing asks the provider, filling its cache), and one frame an answer: both notes match.
    const { code, stdout } = await ocp([
      "bench",
      "examples/hello-provider.ts",
      "--goal",
      "retries",
      "--rounds",
      "2",
      "--max-frames",
      "1",
    ]);
    expect(code).toBe(0);
    expect(stdout).toMatch(
      /^tokenizer [\d.]+ ms \(loading its tables, before the first query: in none of the times below\)$/m,
    );
    const firstRound =
      /^token count cache .*; first round (\d+\.\d)% \(emptied before it\), later rounds 100\.0%$/m.exec(stdout);
    expect(Number(firstRound?.[1])).toBeLessThan(100);
    const queries = Number(/^per query, ms \((\d+) queries\)/m.exec(stdout)?.[1]);
    expect(stdout).toContain(
      `truncated           ${queries} of ${queries}, all at max_frames 1: the frame limit bound, not the budget`,
    );
  });

  it("refuses a bad command line with exit 2, naming the problem", async () => {
    expect((await ocp(["bench"])).stderr).toMatch(/^ocp bench: takes exactly one module \(usage: ocp bench <module>/);
    expect((await ocp(["bench", "examples/hello-provider.ts", "--budget", "0"])).code).toBe(2);
    const missing = await ocp(["bench", "examples/hello-provider.ts", "--goals", join(tmp, "nope.txt")]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("--goals: cannot read");
  });
});

describe("npm run bench -- --help", () => {
  it("prints the usage and runs nothing", async () => {
    const { stdout } = await exec("npm", ["run", "--silent", "bench", "--", "--help"], { cwd: REPO });
    expect(stdout).toMatch(/^npm run bench -- \[name\.\.\.\] \[--strict\]/);
    expect(stdout).toMatch(/Benchmarks: .*tokens/);
    expect(stdout).not.toContain("# ocp-provider benchmarks");
  });
});
