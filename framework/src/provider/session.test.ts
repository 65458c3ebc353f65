import { describe, expect, it } from "vitest";
import { silentLogger } from "./logger.js";
import { definePlugin } from "./plugin.js";
import { defineProvider } from "./provider.js";
import { createSession } from "./session.js";

const provider = () =>
  defineProvider({
    name: "session-test",
    version: "2.0.0",
    dataFlow: { reads: true, writes: false, egress: true },
    logger: silentLogger,
    plugins: [definePlugin({ name: "one", kinds: ["doc"], search: () => [{ content: "one", relevance: 1 }] })],
  });

const handshake = (version = "ocp/1.0-draft") => ({ type: "handshake", protocol_version: version });
const query = { type: "query", query: { goal: "g", kinds: [], anchors: [], max_frames: 1, max_tokens: 10 } };

describe("session", () => {
  it("acks a handshake in the same major family with the provider's identity and capabilities", async () => {
    for (const version of ["ocp/1.0-draft", "ocp/1.0", "ocp/1.9"]) {
      const session = createSession(provider());
      expect(await session.handle(handshake(version))).toEqual({
        type: "handshake_ack",
        protocol_version: "ocp/1.0-draft",
        provider: { name: "session-test", version: "2.0.0", data_flow: { reads: true, writes: false, egress: true } },
        capabilities: {
          query: { kinds: ["doc"], filters: [] },
          upsert: false,
          graph: false,
          embeddings_fingerprint: null,
          subscribe: false,
        },
      });
      expect(session.state).toBe("ready");
    }
  });

  it("names both versions on a family mismatch and stays unready", async () => {
    const session = createSession(provider());
    const reply = await session.respond(handshake("ocp/2.0"));
    expect(reply.outcome).toBe("rejected");
    expect(reply.envelope).toEqual({
      type: "error",
      message:
        "protocol version mismatch: host speaks ocp/2.0 (family ocp/2), this provider speaks ocp/1.0-draft (family ocp/1)",
    });
    expect(session.state).toBe("awaiting-handshake");
    expect((await session.handle(query))?.type).toBe("error");
  });

  it("changes state synchronously, so a query handed over right after the handshake is answered", async () => {
    const session = createSession(provider());
    const ack = session.handle(handshake());
    const frames = session.handle(query);
    expect((await ack)?.type).toBe("handshake_ack");
    expect((await frames)?.type).toBe("frames");
  });

  it("has no reply for shutdown and refuses everything after it", async () => {
    const session = createSession(provider());
    await session.handle(handshake());
    expect(await session.handle({ type: "shutdown" })).toBeUndefined();
    expect(session.state).toBe("closed");
    expect(await session.handle(query)).toEqual({ type: "error", message: "session is shut down" });
    expect(await session.handle(handshake())).toEqual({ type: "error", message: "session is shut down" });
  });

  it("grades replies for transports with status codes: rejected input vs failed search", async () => {
    const failing = defineProvider({
      name: "failing",
      version: "1",
      dataFlow: { reads: true, writes: false, egress: false },
      logger: silentLogger,
      plugins: [definePlugin({ name: "x", kinds: ["doc"], search: () => Promise.reject(new Error("boom")) })],
    });
    const session = createSession(failing, { requireHandshake: false });
    expect((await session.respond(query)).outcome).toBe("failed");
    expect((await session.respond({ type: "query", query: { goal: "" } })).outcome).toBe("rejected");
    expect((await session.respond("not an object")).outcome).toBe("rejected");
  });

  it("provider.handle runs a default session in-process", async () => {
    const p = provider();
    expect((await p.handle(query))?.type).toBe("error");
    expect((await p.handle(handshake()))?.type).toBe("handshake_ack");
    const reply = await p.handle(query);
    expect(reply?.type === "frames" && reply.result.frames[0]?.content).toBe("one");
  });
});
