/**
 * How much of an MCP answer's budget is evidence: the content share, the shown frames'
 * `token_cost` over `max_tokens`, for every goal of bench/cases/docs.jsonl (and the mcp
 * benchmark's own), through `ocp mcp examples/docs-provider.ts` as a client receives it,
 * and for the format before issue 29 (bench/mcp-old-render.ts) under the same answerer,
 * in-process, with the same goals in the same order. The frame limit is the tool's
 * largest, so the budget, not the frame count, bounds each answer.
 */
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Provider } from "ocp-provider";
import { ContextQueryResultSchema } from "ocp-provider/wire";
import { createBudgetedAnswerer } from "ocp-provider-mcp";
import docsProvider from "../examples/docs-provider.js";
import { type BenchRow, checkVerdict, type Verdict } from "./harness.js";
import { readCases } from "./labelled-cases.js";
import { oldContextRenderer } from "./mcp-old-render.js";

/** The tool's largest frame limit. */
const MAX_FRAMES = 64;

interface Tiktoken {
  get_encoding(name: string): { encode_ordinary(text: string): Uint32Array };
}
const o200k = (createRequire(import.meta.url)("tiktoken") as Tiktoken).get_encoding("o200k_base");

/** One answer's tokens: the frames' contents, the whole text, and how many frames. */
interface Answered {
  readonly content: number;
  readonly rendered: number;
  readonly frames: number;
}

/** The content shares measured, by format and budget, with the table and the checks behind them. */
export interface ContentShares {
  /** Mean content / max_tokens of the current format (through `ocp mcp`) at `budget`. */
  current(budget: number): number;
  /** The same for the format before issue 29. */
  before(budget: number): number;
  readonly rows: readonly BenchRow[];
  readonly verdicts: readonly Verdict[];
}

const sum = (values: readonly number[]) => values.reduce((total, value) => total + value, 0);

/** A share as a percentage with one decimal. */
export const percent = (share: number): string => `${(share * 100).toFixed(1)}%`;

/** Asks every goal at every budget, both formats. `firstGoal` leads the goals (the benchmark's own call). */
export async function measureContentShares(budgets: readonly number[], firstGoal: string): Promise<ContentShares> {
  const goals = [firstGoal, ...readCases(new URL("./cases/docs.jsonl", import.meta.url)).map((c) => c.goal)];
  const provider = docsProvider as Provider;
  const old = createBudgetedAnswerer(provider, oldContextRenderer(provider.counter));
  const client = new Client({ name: "bench", version: "0.0.0" });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: ["framework/bin/ocp.js", "mcp", "examples/docs-provider.ts"],
      cwd: fileURLToPath(new URL("..", import.meta.url)),
      stderr: "ignore",
    }),
  );
  const answers = { current: new Map<number, Answered[]>(), before: new Map<number, Answered[]>() };
  let failed = 0;
  try {
    for (const max_tokens of budgets) {
      const current: Answered[] = [];
      const before: Answered[] = [];
      for (const goal of goals) {
        const args = { goal, max_tokens, max_frames: MAX_FRAMES };
        const reply = (await client.callTool({ name: "get_context", arguments: args })) as CallToolResult;
        const text = (reply.content[0] as { text?: string } | undefined)?.text ?? "";
        const { frames } = ContextQueryResultSchema.parse(reply.structuredContent);
        const rendered = o200k.encode_ordinary(text).length;
        if (reply.isError === true || rendered > max_tokens) failed++;
        current.push({ content: sum(frames.map((f) => f.token_cost)), rendered, frames: frames.length });
        const { result, rendering } = await old(args);
        const content = sum(result.frames.map((f) => f.token_cost));
        before.push({ content, rendered: rendering.tokens, frames: result.frames.length });
      }
      answers.current.set(max_tokens, current);
      answers.before.set(max_tokens, before);
    }
  } finally {
    await client.close();
    await provider.close();
  }
  const share = (list: readonly Answered[], budget: number) => sum(list.map((a) => a.content)) / (budget * list.length);
  const rows: BenchRow[] = [];
  for (const budget of budgets) {
    for (const format of ["current", "before"] as const) {
      const list = answers[format].get(budget) as Answered[];
      const framesShown = sum(list.map((a) => a.frames));
      rows.push({
        format: format === "current" ? "current (ocp mcp)" : "before issue 29",
        max_tokens: budget,
        answers: list.length,
        "content / max_tokens": percent(share(list, budget)),
        lowest: percent(Math.min(...list.map((a) => a.content / budget))),
        "content / text": percent(sum(list.map((a) => a.content)) / sum(list.map((a) => a.rendered))),
        "frames per answer": (framesShown / list.length).toFixed(1),
        "wrapper tokens per frame":
          framesShown === 0 ? "n/a" : (sum(list.map((a) => a.rendered - a.content)) / framesShown).toFixed(1),
      });
    }
  }
  return {
    current: (budget) => share(answers.current.get(budget) ?? [], budget),
    before: (budget) => share(answers.before.get(budget) ?? [], budget),
    rows,
    verdicts: [
      checkVerdict(
        "every content-share answer through ocp mcp fits max_tokens (tiktoken) and is no error",
        failed === 0,
        `${failed} of ${goals.length * budgets.length} did not`,
      ),
    ],
  };
}

/** Notes on the content-share table. */
export const SHARE_NOTES: readonly string[] = [
  `${MAX_FRAMES} frames allowed, so the budget bounds each answer; content = the shown frames' token_cost (o200k_base); text = the whole text block, by tiktoken; wrapper tokens per frame = (text − content) / frames, the preamble and closing line included.`,
  '"before issue 29" is the old format (bench/mcp-old-render.ts) under the same answerer, in-process, same goals in the same order; the current format is measured through ocp mcp over stdio, as a client receives it.',
];
