/**
 * The tokenizer extension (docs/tokens.md): a host that asks at the handshake gets the
 * provider's tokenizers in the ack and its costs counted in the one it chose, per
 * session; a host that does not ask sees the protocol's own ack and the default costs.
 */
import { createRequire } from "node:module";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { createTokenCounter } from "../tokens/counter.js";
import { isFamilyLoaded, unloadFamily } from "../tokens/families.js";
import { installedTokenizers } from "../tokens/registry.js";
import { writeEnvelope } from "../wire/codec.js";
import type { ContextQueryResult, Envelope } from "../wire/schemas.js";
import { InvalidQueryError, OcpError } from "./errors.js";
import { silentLogger } from "./logger.js";
import { definePlugin } from "./plugin.js";
import { defineProvider, type ProviderOptions } from "./provider.js";
import { createSession } from "./session.js";

/** Code on which Gemma 3 and o200k disagree (checked below, so the test can tell them apart). */
const CODE = [
  "export async function readAll(stream: NodeJS.ReadableStream): Promise<string> {",
  "  const chunks: Buffer[] = [];",
  "  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Uint8Array));",
  "  return Buffer.concat(chunks).toString('utf8');",
  "}",
  "",
].join("\n");

const provider = (options: Partial<ProviderOptions> = {}) =>
  defineProvider({
    name: "tokenizer-test",
    version: "1.0.0",
    dataFlow: { reads: true, writes: false, egress: false },
    logger: silentLogger,
    plugins: [definePlugin({ name: "code", kinds: ["snippet"], search: () => [{ content: CODE, relevance: 1 }] })],
    ...options,
  });

const handshake = (extra: object = {}) => ({ type: "handshake", protocol_version: "ocp/1.0-draft", ...extra });
const query = (maxTokens = 4000) => ({
  type: "query",
  query: { goal: "read a stream", kinds: [], anchors: [], max_frames: 5, max_tokens: maxTokens },
});
const costs = (reply: Envelope | undefined) =>
  (reply as { result: ContextQueryResult }).result.frames.map((frame) => frame.token_cost);

const schema = createRequire(import.meta.url)("../../schema/ocp-envelope.reference.schema.json") as object;
const validate = new Ajv2020({ strict: false }).compile(schema);

// The first count in a family loads its vocabulary: seconds, more on a busy machine.
describe("the tokenizer extension", { timeout: 120_000 }, () => {
  it("loads a chosen vocabulary after the ack, never while answering the handshake", async () => {
    // Another test file in this worker may have counted in Llama 3 (unit tests share their
    // process): start from a process that has not.
    unloadFamily("llama3");
    const session = createSession(provider());
    const ack = await session.handle(handshake({ tokenizers: ["llama3"] }));
    expect(ack).toMatchObject({ tokenizer: "llama3" });
    expect(isFamilyLoaded("llama3")).toBe(false);
    const llama = createTokenCounter({ tokenizer: "llama3", cacheSize: 0 });
    expect(costs(await session.handle(query()))).toEqual([llama.count(CODE)]);
    expect(isFamilyLoaded("llama3")).toBe(true);
  });

  it("without the request, acks exactly as the protocol does and counts in the provider's default", async () => {
    const plain = provider();
    const session = createSession(plain);
    const ack = (await session.handle(handshake())) as Envelope;
    expect(Object.keys(ack).sort()).toEqual(["capabilities", "protocol_version", "provider", "type"]);
    const line = writeEnvelope(ack);
    // Byte for byte the ack of a provider that never heard of the extension.
    expect(line).toBe(
      JSON.stringify({
        type: "handshake_ack",
        protocol_version: "ocp/1.0-draft",
        provider: plain.info,
        capabilities: plain.capabilities,
      }),
    );
    expect(validate(JSON.parse(line))).toBe(true);
    expect(costs(await session.handle(query()))).toEqual([createTokenCounter().count(CODE)]);
  });

  it("with the request, names the session's tokenizer and every one offered, and counts in it", async () => {
    const gemma = createTokenCounter({ tokenizer: "gemma3", cacheSize: 0 });
    const o200k = createTokenCounter({ cacheSize: 0 });
    expect(gemma.count(CODE)).not.toBe(o200k.count(CODE));
    const session = createSession(provider());
    const ack = (await session.handle(handshake({ tokenizers: ["gemma3", "qwen3"] }))) as Envelope;
    expect(ack).toMatchObject({ tokenizer: "gemma3", tokenizers: installedTokenizers() });
    // Written with the extension's two fields; without them, it is the protocol's ack.
    const written = JSON.parse(writeEnvelope(ack)) as Record<string, unknown>;
    expect(written.tokenizer).toBe("gemma3");
    expect(written.tokenizers).toEqual(installedTokenizers());
    const { tokenizer: _t, tokenizers: _ts, ...protocol } = written;
    expect(validate(protocol)).toBe(true);
    expect(costs(await session.handle(query()))).toEqual([gemma.count(CODE)]);
  });

  it("keeps the budget in the session's tokenizer: content that fits in o200k is cut to fit in Gemma 3", async () => {
    const gemma = createTokenCounter({ tokenizer: "gemma3", cacheSize: 0 });
    const o200k = createTokenCounter({ cacheSize: 0 });
    const [low, high] = [o200k.count(CODE), gemma.count(CODE)].sort((a, b) => a - b) as [number, number];
    const session = createSession(provider());
    await session.handle(handshake({ tokenizers: ["gemma3"] }));
    const reply = (await session.handle(query(low))) as { result: ContextQueryResult };
    const total = reply.result.frames.reduce((sum, frame) => sum + frame.token_cost, 0);
    expect(total).toBeLessThanOrEqual(low);
    for (const frame of reply.result.frames) expect(frame.token_cost).toBe(gemma.count(frame.content));
    if (high > low) expect(reply.result.truncated).toBe(true);
  });

  it("is per session: two sessions of one provider count in their own tokenizers", async () => {
    const shared = provider();
    const a = createSession(shared);
    const b = createSession(shared);
    await a.handle(handshake({ tokenizers: ["gemma3"] }));
    await b.handle(handshake());
    expect(costs(await a.handle(query()))).toEqual([createTokenCounter({ tokenizer: "gemma3" }).count(CODE)]);
    expect(costs(await b.handle(query()))).toEqual([createTokenCounter().count(CODE)]);
  });

  it.each([
    [["p50k_base", "qwen"], "qwen3"],
    [["gpt2"], "o200k_base"],
    [[], "o200k_base"],
    ["gemma3", "o200k_base"],
    [[42, null, "", "deepseek_v3"], "deepseek_v3"],
  ])("reads the request %j tolerantly and chooses %s", async (tokenizers, chosen) => {
    const ack = await createSession(provider()).handle(handshake({ tokenizers }));
    expect(ack).toMatchObject({ tokenizer: chosen, tokenizers: installedTokenizers() });
  });

  it("reads a null request as none", async () => {
    const ack = (await createSession(provider()).handle(handshake({ tokenizers: null }))) as Envelope;
    expect("tokenizer" in ack).toBe(false);
  });

  it("a later handshake replaces the choice; one without the request goes back to the default", async () => {
    const session = createSession(provider());
    await session.handle(handshake({ tokenizers: ["gemma3"] }));
    await session.handle(handshake());
    expect(costs(await session.handle(query()))).toEqual([createTokenCounter().count(CODE)]);
  });

  it("offers only the tokenizers the provider lists, and its own default always", async () => {
    const narrow = provider({ tokenizer: "cl100k_base", tokenizers: ["gemma3"] });
    expect(narrow.tokenizers).toEqual(["cl100k_base", "gemma3"]);
    const ack = await createSession(narrow).handle(handshake({ tokenizers: ["qwen3", "o200k_base"] }));
    expect(ack).toMatchObject({ tokenizer: "cl100k_base", tokenizers: ["cl100k_base", "gemma3"] });
    expect(() => provider({ tokenizers: ["p50k_base" as never] })).toThrow(OcpError);
  });

  it("lets an in-process query choose too, and refuses a tokenizer the provider does not offer", async () => {
    const narrow = provider({ tokenizers: ["gemma3"] });
    const result = await narrow.query(query().query, { tokenizer: "gemma3" });
    expect(result.frames.map((frame) => frame.token_cost)).toEqual([narrow.counterFor("gemma3").count(CODE)]);
    await expect(narrow.query(query().query, { tokenizer: "qwen3" })).rejects.toThrow(InvalidQueryError);
    expect(() => narrow.counterFor("qwen3")).toThrow(OcpError);
  });
});
