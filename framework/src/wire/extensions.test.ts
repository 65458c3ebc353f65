import { describe, expect, it } from "vitest";
import { writeEnvelope } from "./codec.js";
import { readTokenizerOffer, readTokenizerRequest, withExtension } from "./extensions.js";

const ack = () => ({
  type: "handshake_ack" as const,
  protocol_version: "ocp/1.0-draft",
  provider: { name: "p", version: "1", data_flow: { reads: true, writes: false, egress: false } },
  capabilities: { query: { kinds: [], filters: [] }, upsert: false, graph: false, subscribe: false },
});

describe("extension fields through the strict writer", () => {
  it("are dropped unless the envelope was marked to carry them", () => {
    const plain = { ...ack(), tokenizer: "gemma3", tokenizers: ["gemma3"] };
    expect(JSON.parse(writeEnvelope(plain))).not.toHaveProperty("tokenizer");
    const marked = withExtension(ack(), "tokenizers-offer", {
      tokenizer: "gemma3",
      tokenizers: ["o200k_base", "gemma3"],
    });
    expect(JSON.parse(writeEnvelope(marked))).toMatchObject({
      tokenizer: "gemma3",
      tokenizers: ["o200k_base", "gemma3"],
    });
  });

  it("keep only the extension's own fields, and refuse ones that break its schema", () => {
    const marked = withExtension({ ...ack(), stray: 1 }, "tokenizers-offer", { tokenizer: "x", tokenizers: ["x"] });
    expect(JSON.parse(writeEnvelope(marked))).not.toHaveProperty("stray");
    expect(() => withExtension(ack(), "tokenizers-offer", { tokenizer: "", tokenizers: [] })).toThrow();
    expect(() => withExtension(ack(), "tokenizers-offer", { tokenizer: "x", tokenizers: ["x"], more: 1 })).toThrow();
  });

  it("carry a host's request on its handshake", () => {
    const handshake = withExtension(
      { type: "handshake" as const, protocol_version: "ocp/1.0-draft" },
      "tokenizers-request",
      {
        tokenizers: ["gemma3", "o200k_base"],
      },
    );
    expect(writeEnvelope(handshake)).toBe(
      '{"type":"handshake","protocol_version":"ocp/1.0-draft","tokenizers":["gemma3","o200k_base"]}',
    );
  });
});

describe("reading the extension tolerantly", () => {
  it.each([
    [{}, undefined],
    [{ tokenizers: null }, undefined],
    [{ tokenizers: "gemma3" }, []],
    [{ tokenizers: ["gemma3", 1, "", null, "qwen3"] }, ["gemma3", "qwen3"]],
    [null, undefined],
  ])("request %j reads as %j", (handshake, expected) => {
    expect(readTokenizerRequest(handshake)).toEqual(expected);
  });

  it.each([
    [{}, undefined],
    [{ tokenizer: "gemma3" }, undefined],
    [{ tokenizer: 3, tokenizers: ["a"] }, undefined],
    [
      { tokenizer: "gemma3", tokenizers: ["o200k_base", "gemma3"] },
      { tokenizer: "gemma3", tokenizers: ["o200k_base", "gemma3"] },
    ],
  ])("offer %j reads as %j", (value, expected) => {
    expect(readTokenizerOffer(value)).toEqual(expected);
  });
});
