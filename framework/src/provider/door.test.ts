/**
 * One door into the answer pipeline: the public objects carry no internal members, the
 * pipeline is reached only through a provider's registered answer, and the wire surface
 * lists its exports by name.
 */
import { describe, expect, it } from "vitest";
import * as wire from "../wire/index.js";
import { OcpError } from "./errors.js";
import { silentLogger } from "./logger.js";
import { definePlugin } from "./plugin.js";
import { defineProvider } from "./provider.js";
import { createSession, openResponder } from "./session.js";

const provider = () =>
  defineProvider({
    name: "door-test",
    version: "1.0.0",
    dataFlow: { reads: true, writes: false, egress: false },
    logger: silentLogger,
    plugins: [definePlugin({ name: "one", kinds: ["doc"], search: () => [{ content: "one", relevance: 1 }] })],
  });

const query = { goal: "g", kinds: [], anchors: [], max_frames: 1, max_tokens: 50 };

describe("the door into the pipeline", () => {
  it("puts no symbol-keyed internals on a provider or a session, only the cross-copy brand", () => {
    const made = provider();
    expect(Object.getOwnPropertySymbols(made).map(String)).toEqual(["Symbol(ocp-provider.provider)"]);
    expect(Object.getOwnPropertySymbols(made.openSession())).toEqual([]);
    expect(Object.getOwnPropertySymbols(createSession(made))).toEqual([]);
  });

  it("refuses a session on something that only looks like a provider", () => {
    const made = provider();
    const lookalike = { info: made.info, capabilities: made.capabilities, log: made.log, start: made.start };
    expect(() => createSession(lookalike)).toThrow(OcpError);
    expect(() => createSession(lookalike)).toThrow(/expected a provider from defineProvider/);
  });

  it("answers at once through the responder when the plugins do, and the same as query()", async () => {
    const made = provider();
    await made.start();
    const { respond } = openResponder(made, { requireHandshake: false });
    const reply = respond({ type: "query", query });
    expect(reply).not.toBeInstanceOf(Promise);
    expect(reply).toEqual({ envelope: { type: "frames", result: await made.query(query) }, outcome: "ok" });
  });

  it("keeps the trusted-envelope brand off the public wire surface", () => {
    expect(Object.keys(wire)).not.toContain("trustEnvelope");
    expect(Object.keys(wire)).toEqual(expect.arrayContaining(["writeEnvelope", "readEnvelope", "ContextFrameSchema"]));
  });
});
