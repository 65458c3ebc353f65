/**
 * How an answer spends its budget, end to end in a real provider: frames sized by the
 * budget (whole definitions when they fit, cut to their signature when tight), one
 * file after another before any file gets a second frame, and every frame still the
 * exact lines of its file.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type ContextFrame, contentDigest, type Provider, sliceLines } from "ocp-provider";
import { afterEach, describe, expect, it } from "vitest";
import { symbolsProvider } from "./provider.js";
import { type FixtureTree, fixtureTree, recordingLog } from "./test-support/fixture-tree.js";

const trees: FixtureTree[] = [];
const providers: Provider[] = [];
afterEach(async () => {
  for (const provider of providers.splice(0)) await provider.close();
  for (const tree of trees.splice(0)) tree.remove();
});

/** A planner module: a class of small fields and a few long methods, all about budgets and frames. */
function plannerModule(i: number): string {
  const fields = Array.from({ length: 8 }, (_, k) => `  frameBudget${k} = ${k};`).join("\n");
  const body = Array.from(
    { length: 24 },
    (_, k) => `    const share${k} = Math.floor((budget - ${k}) / frames.length); // share the budget over frames`,
  ).join("\n");
  return [
    `/** Plans how budget ${i} is shared between frames. */`,
    `export class BudgetPlanner${i} {`,
    fields,
    "",
    "  /**",
    "   * Shares the token budget between the frames, each one taking its share.",
    "   * The rest goes to the frames after it.",
    "   */",
    `  shareBudget${i}(budget: number, frames: string[]): number {`,
    body,
    "    return budget;",
    "  }",
    "}",
    "",
  ].join("\n");
}

async function setup(files: number) {
  const tree = fixtureTree();
  trees.push(tree);
  for (let i = 0; i < files; i++) tree.write(`plan/planner${i}.ts`, plannerModule(i));
  const log = recordingLog();
  const provider = symbolsProvider({ root: tree.root, workers: 0, progress: false, watch: false, logger: log });
  providers.push(provider);
  await provider.start();
  const deadline = Date.now() + 20_000;
  while (!log.lines.some((line) => line.includes("index ready"))) {
    if (Date.now() > deadline) throw new Error(`no 'index ready' line:\n${log.lines.join("\n")}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return { tree, provider };
}

const goal = "share the token budget between the frames of an answer";
const ask = (provider: Provider, maxTokens: number, maxFrames = 20) =>
  provider.query({ goal, kinds: [], anchors: [], max_tokens: maxTokens, max_frames: maxFrames });

function expectExactLines(frame: ContextFrame, root: string) {
  const [, first, last] = /^L(\d+)(?:-(\d+))?$/.exec(frame.provenance[0]?.range ?? "") ?? [];
  const path = frame.citation_label?.replace(/ L\d+(-\d+)?$/, "") as string;
  const source = readFileSync(join(root, path), "utf8");
  expect(frame.content).toBe(sliceLines(source, Number(first), Number(last ?? first)));
  expect(frame.provenance[0]?.digest).toBe(contentDigest(frame.content));
}

const total = (frames: readonly ContextFrame[]) => frames.reduce((sum, frame) => sum + frame.token_cost, 0);
const files = (frames: readonly ContextFrame[]) =>
  new Set(frames.map((frame) => frame.citation_label?.replace(/ L\d+(-\d+)?$/, "")));

describe("granularity under a budget", () => {
  it("spends most of a large budget on whole definitions when there is matching material", async () => {
    const { tree, provider } = await setup(24);
    const result = await ask(provider, 4096);
    // 20 frames of tiny fields would ship a few hundred tokens; this ships most of the 4096.
    expect(total(result.frames)).toBeGreaterThan(3000);
    expect(total(result.frames)).toBeLessThanOrEqual(4096);
    expect(result.frames).toHaveLength(20);
    // One frame per file: twenty files cited, not twenty members of one class.
    expect(files(result.frames).size).toBe(20);
    for (const frame of result.frames) {
      expect(frame.title).toMatch(/^BudgetPlanner\d+(\.shareBudget\d+)? \((class|method)\)$/);
      expect(frame.score).toBeGreaterThan(0);
      expect(frame.score).toBeLessThanOrEqual(1);
      expectExactLines(frame, tree.root);
    }
  });

  it("cuts definitions to their first lines when the budget is tight, still one file per frame", async () => {
    const { tree, provider } = await setup(24);
    const result = await ask(provider, 1024);
    expect(total(result.frames)).toBeLessThanOrEqual(1024);
    expect(total(result.frames)).toBeGreaterThan(700);
    expect(result.frames.length).toBeGreaterThanOrEqual(15);
    expect(files(result.frames).size).toBe(result.frames.length);
    for (const frame of result.frames) expectExactLines(frame, tree.root);
  });

  it("gives a file a second frame only after every matching file has one", async () => {
    const { provider } = await setup(3);
    const result = await ask(provider, 4096, 6);
    const paths = result.frames.map((frame) => frame.citation_label?.replace(/ L\d+(-\d+)?$/, ""));
    expect(new Set(paths.slice(0, 3)).size).toBe(3);
    for (let i = 1; i < result.frames.length; i++)
      expect(result.frames[i]?.score).toBeLessThanOrEqual(result.frames[i - 1]?.score as number);
  });
});
