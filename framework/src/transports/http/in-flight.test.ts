/**
 * The HTTP transport's bound on requests taken on at once, on a real socket: searches
 * that do not end until the test says so stand for slow ones, and the plugin counts
 * its calls, so nothing here is timed.
 */
import { request as httpRequest } from "node:http";
import { connect } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { assertReferenceValid } from "../../../../test/test-support/reference-schema.js";
import { ERROR_CODES } from "../../provider/errors.js";
import { silentLogger } from "../../provider/logger.js";
import { definePlugin } from "../../provider/plugin.js";
import { defineProvider } from "../../provider/provider.js";
import { createHttpApp, type HttpServer, serveHttp } from "./server.js";

/** A provider whose searches all wait until `release()`; afterwards they answer at once. */
function heldProvider() {
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const state = { calls: 0, callsWhileHeld: 0, isReleased: false };
  void released.then(() => {
    state.isReleased = true;
  });
  const provider = defineProvider({
    name: "held",
    version: "1.0.0",
    dataFlow: { reads: false, writes: false, egress: false },
    logger: silentLogger,
    tokenizer: "canonical",
    plugins: [
      definePlugin({
        name: "held",
        kinds: ["doc"],
        timeoutMs: 600_000,
        search: async ({ goal }) => {
          state.calls++;
          if (!state.isReleased) state.callsWhileHeld++;
          await released;
          return [{ id: goal, content: `answer to ${goal}`, relevance: 1 }];
        },
      }),
    ],
  });
  return { provider, state, release };
}

const query = (goal: string) =>
  JSON.stringify({ type: "query", query: { goal, kinds: [], anchors: [], max_frames: 1, max_tokens: 200 } });

/** One POST on a connection of its own. */
function post(port: number, body: string): Promise<{ status: number; retryAfter?: string; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: "127.0.0.1", port, method: "POST", agent: false, headers: { "content-type": "application/json" } },
      (res) => {
        let text = "";
        res.setEncoding("utf8").on("data", (chunk: string) => {
          text += chunk;
        });
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, retryAfter: res.headers["retry-after"] as string, body: text }),
        );
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** Resolves once `condition()` holds, checking every 10 ms. */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 10));
}

let server: HttpServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("HTTP: requests taken on at once", () => {
  it("refuses a request past maxInFlight at once with 503 and OCP_ERR_BUSY, without searching", async () => {
    const { provider, state, release } = heldProvider();
    server = await serveHttp(provider, { maxInFlight: 4 });
    const port = server.port;
    const held = Array.from({ length: 4 }, (_, i) => post(port, query(`held ${i}`)));
    await until(() => state.calls === 4);
    // Either the fifth is answered while the four still search, or it was taken on too.
    const fifth = await Promise.race([
      post(port, query("fifth")),
      until(() => state.calls > 4).then(() => "taken on" as const),
    ]);
    expect(fifth).not.toBe("taken on");
    if (fifth === "taken on") return;
    expect(fifth.status).toBe(503);
    expect(fifth.retryAfter).toBe("1");
    const envelope = JSON.parse(fifth.body);
    assertReferenceValid(envelope);
    expect(envelope.message).toMatch(/^OCP_ERR_BUSY: provider is busy: 4 requests being answered/);
    expect(state.calls).toBe(4);
    release();
    expect((await Promise.all(held)).map((reply) => reply.status)).toEqual([200, 200, 200, 200]);
    expect((await post(port, query("after"))).status).toBe(200);
  });

  it("bounds one connection's pipelined requests the same way; every one is answered, in order", async () => {
    const { provider, state, release } = heldProvider();
    server = await serveHttp(provider, { maxInFlight: 8 });
    const COUNT = 1000; // ~190 KB: more than one read of the socket
    const socket = connect(server.port, "127.0.0.1");
    let received = "";
    socket.setEncoding("utf8").on("data", (chunk: string) => {
      received += chunk;
    });
    const requests = Array.from({ length: COUNT }, (_, i) => {
      const body = query(`q${i}`);
      return `POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    });
    socket.write(requests.join(""));
    await until(() => state.calls >= 8);
    // Nothing is written before the first reply: the replies to those refused wait behind it.
    release();
    await until(() => (received.match(/^HTTP\/1\.1 /gm)?.length ?? 0) === COUNT);
    socket.destroy();
    expect(state.callsWhileHeld).toBeLessThanOrEqual(8);
    const statuses = [...received.matchAll(/^HTTP\/1\.1 (\d{3})/gm)].map((match) => Number(match[1]));
    expect(statuses.slice(0, 8)).toEqual(Array(8).fill(200));
    expect(new Set(statuses)).toEqual(new Set([200, 503]));
    // The frames replies come in request order.
    const goals = [...received.matchAll(/"id":"held:(q\d+)"/g)].map((match) => Number((match[1] as string).slice(1)));
    expect(goals).toHaveLength(statuses.filter((status) => status === 200).length);
    expect(goals).toEqual([...goals].sort((a, b) => a - b));
    expect(goals.slice(0, 8)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });

  it("refuses a maxInFlight that is not a whole number of at least 1, with a coded error", () => {
    for (const bad of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => createHttpApp(heldProvider().provider, { maxInFlight: bad }), String(bad)).toThrow(
        expect.objectContaining({ code: ERROR_CODES.HTTP_CONFIG }),
      );
    }
  });
});
