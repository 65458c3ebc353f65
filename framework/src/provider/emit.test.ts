/**
 * Every message the framework can emit validates under the reference schema, with no
 * extra field — including frames, which the writer trusts without re-checking because
 * they are valid by construction. This property is what earns that trust.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { referenceSchemaErrors } from "../../../test/test-support/reference-schema.js";
import { arbitraryHostEnvelope, arbitraryWireString } from "../test-support/arbitraries.js";
import { writeEnvelope } from "../wire/codec.js";
import { FRAME_KINDS, type FrameKind } from "../wire/schemas.js";
import { silentLogger } from "./logger.js";
import { type Candidate, definePlugin } from "./plugin.js";
import { defineProvider } from "./provider.js";

const junk = fc.dictionary(fc.constantFrom("extra", "_private", "score", "token_cost"), fc.anything(), { maxKeys: 2 });
const optional = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: undefined });
const multiline = fc.array(arbitraryWireString, { maxLength: 6 }).map((lines) => lines.join("\n"));

/** Valid candidates as a plugin might return them, extra keys included. */
const candidate: fc.Arbitrary<Candidate> = fc
  .record({
    content: fc.oneof(multiline, arbitraryWireString),
    relevance: fc.oneof(fc.double({ min: 0, max: 5, noNaN: true }), fc.constantFrom(0, 1, 1e9)),
    id: optional(fc.string({ minLength: 1, maxLength: 8 })),
    kind: optional(fc.constantFrom(...FRAME_KINDS)),
    title: optional(arbitraryWireString),
    citationLabel: optional(arbitraryWireString),
    uri: optional(fc.oneof(fc.constant("file:///repo/src/a.ts"), fc.webUrl(), fc.constant("fact://store/1"))),
    path: optional(fc.string({ minLength: 1, maxLength: 10 })),
    range: optional(
      fc.tuple(fc.integer({ min: 1, max: 500 }), fc.nat(40)).map(([start, more]) => ({ start, end: start + more })),
    ),
    provenance: optional(
      fc.array(
        fc.tuple(fc.record({ type: optional(fc.string({ minLength: 1 })), method: optional(fc.string()) }), junk),
        { maxLength: 3 },
      ),
    ).map((entries) => entries?.map(([entry, extra]) => ({ ...extra, ...entry }))),
    validFrom: optional(fc.oneof(fc.date({ noInvalidDate: true }), fc.string())),
    recordedAt: optional(fc.date({ noInvalidDate: true })),
    relations: optional(
      fc.array(
        fc.record({
          rel: fc.string({ minLength: 1 }),
          targetUri: fc.string({ minLength: 1 }),
          displayName: optional(fc.string()),
        }),
        { maxLength: 2 },
      ),
    ),
    embedding: optional(
      fc.tuple(
        fc.record({
          fingerprint: fc.string({ minLength: 1 }),
          vector: optional(fc.array(fc.double({ noNaN: true, noDefaultInfinity: true }), { maxLength: 3 })),
        }),
        junk,
      ),
    ).map((pair) => (pair === undefined ? undefined : { ...pair[1], ...pair[0] })),
    extra: junk,
  })
  .map(({ extra, ...fields }) => {
    const clean = Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
    return { ...extra, ...clean } as unknown as Candidate;
  });

function providerOf(candidates: Candidate[], scores: "unit" | "unbounded") {
  return defineProvider({
    name: "emit-test",
    version: "1.0.0",
    dataFlow: { reads: true, writes: false, egress: false },
    logger: silentLogger,
    plugins: [definePlugin({ name: "p", kinds: [...FRAME_KINDS] as FrameKind[], scores, search: () => candidates })],
  });
}

describe("everything the framework emits", () => {
  it("validates under the reference schema, frames included", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(candidate, { maxLength: 8 }),
        fc.constantFrom("unit", "unbounded" as const),
        fc.record({
          max_tokens: fc.oneof(fc.nat(60), fc.nat(4000)),
          max_frames: fc.nat(6),
          kinds: fc.subarray([...FRAME_KINDS]),
        }),
        async (candidates, scores, limits) => {
          const session = providerOf(candidates, scores).openSession();
          const replies = [
            await session.handle({ type: "handshake", protocol_version: "ocp/1.0-draft" }),
            await session.handle({ type: "query", query: { goal: "g", anchors: [], ...limits } }),
          ];
          for (const reply of replies) {
            expect(reply).toBeDefined();
            const text = writeEnvelope(reply as never);
            // The frames writer is hand-made for speed: it must agree with JSON.stringify byte for byte.
            expect(text).toBe(JSON.stringify(reply));
            const wire = JSON.parse(text);
            expect(referenceSchemaErrors(wire), JSON.stringify(wire)).toBeUndefined();
          }
          const frames = replies[1];
          if (frames?.type === "frames") {
            const total = frames.result.frames.reduce((sum, frame) => sum + frame.token_cost, 0);
            expect(total).toBeLessThanOrEqual(limits.max_tokens);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it("answers any host envelope, valid or not, with something valid under the reference schema", async () => {
    const session = providerOf([{ content: "x", relevance: 1 }], "unit").openSession();
    await fc.assert(
      fc.asyncProperty(fc.oneof(arbitraryHostEnvelope, fc.anything()), async (message) => {
        const reply = await session.handle(message);
        if (reply === undefined) return; // shutdown has no reply
        const wire = JSON.parse(writeEnvelope(reply));
        expect(referenceSchemaErrors(wire), JSON.stringify(wire)).toBeUndefined();
      }),
      { numRuns: 500 },
    );
  });
});
