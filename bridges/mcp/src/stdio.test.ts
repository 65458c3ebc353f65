/**
 * The bridge's stdio transport on injected streams, with the bridge's own MCP server
 * behind it: bad lines are answered and skipped whatever the split of the byte stream,
 * requests in flight are bounded, and nothing more is taken while the output is full.
 */
import { PassThrough } from "node:stream";
import fc from "fast-check";
import { definePlugin, defineProvider, silentLogger } from "ocp-provider";
import { describe, expect, it } from "vitest";
import { createMcpBridge } from "./bridge.js";
import { INVALID_REQUEST, McpStdioTransport, PARSE_ERROR } from "./stdio.js";
import { troubledProvider } from "./test-support/providers.js";

const INITIALIZE = {
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } },
};
const line = (message: unknown) => `${JSON.stringify(message)}\n`;
const call = (id: number, goal: string) =>
  line({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "get_context", arguments: { goal } } });

/** A sink that keeps every line written; `full` makes writes report a full buffer until `drain()`. */
function sink() {
  const written: unknown[] = [];
  const drains: (() => void)[] = [];
  let full = false;
  return {
    written,
    set full(value: boolean) {
      full = value;
    },
    write(chunk: string) {
      written.push(JSON.parse(chunk));
      return !full;
    },
    once(_event: "drain", listener: () => void) {
      drains.push(listener);
    },
    drain() {
      for (const listener of drains.splice(0)) listener();
    },
  };
}

/** A bridge server behind a transport on a PassThrough input; resolves `replies(n)` once n lines are out. */
async function serve(provider = troubledProvider(), options: { maxLineBytes?: number; maxInFlight?: number } = {}) {
  const input = new PassThrough();
  const output = sink();
  const warnings: string[] = [];
  const transport = new McpStdioTransport(input, output, { ...options, warn: (message) => warnings.push(message) });
  const server = createMcpBridge(provider).createServer();
  await server.connect(transport);
  const until = async (done: () => boolean) => {
    while (!done()) await new Promise((resolve) => setTimeout(resolve, 5));
  };
  return {
    input,
    output,
    warnings,
    until,
    replies: async (count: number) => {
      await until(() => output.written.length >= count);
      return output.written.slice(0, count);
    },
    close: () => server.close(),
  };
}

describe("McpStdioTransport", () => {
  it("answers a long, a non-JSON and a non-JSON-RPC line with errors and reads on, for any split of the stream (property)", async () => {
    const big = line({ jsonrpc: "2.0", id: 7, method: "tools/list", params: { pad: "x".repeat(400) } });
    const stream = Buffer.from(
      [
        line(INITIALIZE),
        big,
        "{not json\n",
        "\n",
        line({ jsonrpc: "2.0", id: 8, method: 42 }),
        line(["a batch"]),
        line({ jsonrpc: "2.0", id: 9, method: "ping" }),
      ].join(""),
    );
    const expected = [
      { id: 0, result: expect.objectContaining({ serverInfo: expect.anything() }) },
      { id: null, error: { code: PARSE_ERROR, message: "Parse error: a line over 256 bytes, skipped unread" } },
      { id: null, error: { code: PARSE_ERROR, message: "Parse error: a line that is not JSON" } },
      { id: 8, error: { code: INVALID_REQUEST, message: expect.stringMatching(/^Invalid Request/) } },
      { id: null, error: { code: INVALID_REQUEST, message: expect.stringMatching(/^Invalid Request/) } },
      { id: 9, result: {} },
    ].map((reply) => ({ jsonrpc: "2.0", ...reply }));
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 1, max: stream.length - 1 }), { maxLength: 12 }), async (cuts) => {
        const served = await serve(undefined, { maxLineBytes: 256 });
        let at = 0;
        for (const cut of [...new Set(cuts)].sort((a, b) => a - b)) {
          served.input.write(stream.subarray(at, cut));
          at = cut;
        }
        served.input.write(stream.subarray(at));
        const replies = await served.replies(expected.length);
        const byId = (reply: unknown) => JSON.stringify((reply as { id: unknown }).id);
        // The SDK answers requests asynchronously and refusals go out at once: compare by id, and refusals in line order.
        const numbered = replies.filter((reply) => byId(reply) !== "null") as { id: number }[];
        expect(numbered.sort((a, b) => a.id - b.id)).toEqual(expected.filter((reply) => reply.id !== null));
        expect(replies.filter((reply) => byId(reply) === "null")).toEqual(
          expected.filter((reply) => reply.id === null),
        );
        expect(served.warnings).toHaveLength(4);
        expect(served.warnings.join("\n")).not.toMatch(/xxx|not json\n/);
        await served.close();
      }),
      { numRuns: 25 },
    );
  });

  it("takes on at most maxInFlight requests at once, and the rest as answers go out or calls are cancelled", async () => {
    let running = 0;
    let most = 0;
    const gates: (() => void)[] = [];
    const provider = defineProvider({
      name: "gated",
      version: "1.0.0",
      dataFlow: { reads: true, writes: false, egress: false },
      logger: silentLogger,
      pluginTimeoutMs: 60_000,
      plugins: [
        definePlugin({
          name: "gate",
          kinds: ["memory"],
          search: async ({ goal }) => {
            running++;
            most = Math.max(most, running);
            await new Promise<void>((resolve) => gates.push(resolve));
            running--;
            return [{ content: `${goal}\n`, relevance: 1, title: goal }];
          },
        }),
      ],
    });
    const served = await serve(provider, { maxInFlight: 4 });
    const release = async (count: number) => {
      for (let released = 0; released < count; released++) {
        await served.until(() => gates.length > 0);
        (gates.shift() as () => void)();
      }
    };
    served.input.write(line(INITIALIZE));
    await served.replies(1);
    served.input.write(Array.from({ length: 40 }, (_, i) => call(i + 1, `goal ${i + 1}`)).join(""));
    await served.until(() => running === 4);
    // Everything else read is waiting, not running, and the input is paused.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(running).toBe(4);
    expect(served.input.isPaused()).toBe(true);
    // One answered: one more taken on.
    await release(1);
    await served.replies(2);
    await served.until(() => running === 4);
    await release(39);
    const replies = (await served.replies(41)) as { id: number; result?: unknown }[];
    expect(replies.every((reply) => reply.result !== undefined)).toBe(true);
    expect(replies.map((reply) => reply.id).sort((a, b) => a - b)).toEqual(Array.from({ length: 41 }, (_, i) => i));
    expect(most).toBe(4);
    expect(served.input.isPaused()).toBe(false);

    // A cancelled call gets no answer from the SDK: it no longer counts as in flight.
    served.input.write([41, 42, 43].map((id) => call(id, `goal ${id}`)).join(""));
    await served.until(() => running === 3);
    served.input.write(line({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 41 } }));
    served.input.write([44, 45].map((id) => call(id, `goal ${id}`)).join(""));
    await served.until(() => running === 5);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(running).toBe(5);
    await release(5);
    const rest = (await served.replies(45)).slice(41) as { id: number }[];
    expect(rest.map((reply) => reply.id).sort((a, b) => a - b)).toEqual([42, 43, 44, 45]);
    await served.close();
  });

  it("takes nothing more while the output has not taken what was written", async () => {
    const served = await serve();
    served.output.full = true;
    served.input.write(["{bad 1\n", "{bad 2\n", "{bad 3\n"].join(""));
    await served.replies(1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(served.output.written).toHaveLength(1);
    expect(served.input.isPaused()).toBe(true);
    served.output.full = false;
    served.output.drain();
    expect(await served.replies(3)).toHaveLength(3);
    expect(served.input.isPaused()).toBe(false);
    await served.close();
  });
});
