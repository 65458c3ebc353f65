/**
 * How an answer spends its budget, end to end in a real provider: one region per file,
 * each shipping a pointer, a definition's head or a larger view of it; broad when the
 * ranking is flat, deep in the file that stands clearly above the rest; and every frame
 * still the exact lines of its file.
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

/** A module that answers the goal outright: every definition in it is about sharing an answer's token budget. */
const ANSWER_MODULE = [
  'import { BudgetPlanner0 } from "./planner0.js";',
  "",
  "/** An answer: the frames a host gets for its token budget. */",
  "export interface Answer {",
  "  frames: string[];",
  "  tokens: number;",
  "}",
  "",
  "/**",
  " * Shares the token budget between the frames of an answer: each frame of the answer",
  " * takes its share of the token budget, and what a frame leaves goes to the frames after it.",
  " */",
  "export function shareAnswerBudget(answer: Answer, tokenBudget: number): number[] {",
  "  const shares: number[] = [];",
  "  let left = tokenBudget;",
  "  for (let i = 0; i < answer.frames.length; i++) {",
  "    // the share of the token budget this frame of the answer gets",
  "    const share = Math.floor(left / (answer.frames.length - i));",
  "    shares.push(share);",
  "    left -= share;",
  "  }",
  "  return shares;",
  "}",
  "",
  "export const planner = new BudgetPlanner0();",
  "",
].join("\n");

async function setup(files: number, answer = false) {
  const tree = fixtureTree();
  trees.push(tree);
  for (let i = 0; i < files; i++) tree.write(`plan/planner${i}.ts`, plannerModule(i));
  if (answer) tree.write("plan/answer.ts", ANSWER_MODULE);
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

const rangeOf = (frame: ContextFrame) => {
  const [, first, last] = /^L(\d+)(?:-(\d+))?$/.exec(frame.provenance[0]?.range ?? "") ?? [];
  return { start: Number(first), end: Number(last ?? first) };
};

describe("granularity under a budget", () => {
  it("flat ranking: spends most of a large budget over every file, larger views for all alike", async () => {
    const { tree, provider } = await setup(24);
    const result = await ask(provider, 4096);
    // Twenty signatures would ship a few hundred tokens; this ships most of the 4096.
    expect(total(result.frames)).toBeGreaterThan(3000);
    expect(total(result.frames)).toBeLessThanOrEqual(4096);
    expect(result.frames).toHaveLength(20);
    // One frame per file: twenty files cited, not twenty members of one class.
    expect(files(result.frames).size).toBe(20);
    for (const frame of result.frames) {
      expect(frame.title).toMatch(/^BudgetPlanner\d+\.shareBudget\d+ \(method\)/);
      expect(frame.score).toBeGreaterThan(0);
      expect(frame.score).toBeLessThanOrEqual(1);
      expectExactLines(frame, tree.root);
    }
    // Larger than the heads: each holds more than the doc comment and signature.
    expect(result.frames.filter((frame) => rangeOf(frame).end - rangeOf(frame).start + 1 > 5).length).toBeGreaterThan(
      10,
    );
  });

  it("flat ranking, tight budget: a small frame for each file rather than a large one for a few", async () => {
    const { tree, provider } = await setup(24);
    const result = await ask(provider, 1024);
    expect(total(result.frames)).toBeLessThanOrEqual(1024);
    expect(total(result.frames)).toBeGreaterThan(700);
    expect(result.frames).toHaveLength(20);
    expect(files(result.frames).size).toBe(20);
    for (const frame of result.frames) expectExactLines(frame, tree.root);
  });

  it("one file clearly above the rest: it ships whole, the others still cited, and never less of it at a bigger budget", async () => {
    const { tree, provider } = await setup(23, true);
    const result = await ask(provider, 2048);
    const [top, ...rest] = result.frames;
    expect(top?.citation_label).toBe("plan/answer.ts L1-25");
    expect(top?.content).toBe(ANSWER_MODULE);
    // Breadth is not lost: the other files are still cited, each in less than the top file.
    expect(files(rest).size).toBeGreaterThanOrEqual(15);
    expect(rest.every((frame) => frame.token_cost < (top?.token_cost ?? 0) * 4)).toBe(true);
    for (const frame of result.frames) expectExactLines(frame, tree.root);
    let shipped = 0;
    for (let budget = 64; budget <= 2048; budget += 64) {
      const frame = (await ask(provider, budget)).frames.find((f) => f.citation_label?.startsWith("plan/answer.ts"));
      const lines = frame !== undefined ? rangeOf(frame).end - rangeOf(frame).start + 1 : 0;
      expect(lines).toBeGreaterThanOrEqual(shipped);
      shipped = lines;
    }
    expect(shipped).toBe(25);
  });
});
