/**
 * The frames writer against JSON.stringify, the oracle: byte for byte, also when a
 * frame comes back under an id it was written with before (the writer reuses the JSON
 * of a frame equal to the last one with its id, so a field it failed to compare would
 * show up here as a stale byte).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { arbitraryContextFrame, arbitraryWireString, type WireObject } from "../test-support/arbitraries.js";
import { FRAME_FIELDS } from "./frame-fields.js";
import { createFramesWriter } from "./frames-json.js";
import type { ContextQueryResult } from "./schemas.js";

const runs = { numRuns: 400 };
/** One writer for the whole file, as one provider keeps one: its memos carry over from case to case. */
const writer = createFramesWriter();
const framesEnvelopeJson = (result: ContextQueryResult) => writer.json(result);
const framesEnvelopeLine = (result: ContextQueryResult) => writer.line(result);

/** A wire frame as the framework builds one: absent optionals are left out, never null. */
function built(value: WireObject): WireObject {
  const out: WireObject = {};
  for (const [key, field] of Object.entries(value)) {
    if (field === null) continue;
    out[key] = Array.isArray(field)
      ? field.map((item) => (typeof item === "object" && item !== null ? built(item as WireObject) : item))
      : typeof field === "object"
        ? built(field as WireObject)
        : field;
  }
  return out;
}

/** Frames as the framework builds them. */
const arbitraryBuiltFrame = arbitraryContextFrame.map(built);

/** Writes one frame through the writer and through JSON.stringify. */
function both(frame: WireObject): [ours: string, oracle: string] {
  const result = { frames: [frame], truncated: false } as unknown as ContextQueryResult;
  return [framesEnvelopeJson(result), JSON.stringify({ type: "frames", result })];
}

/** Where one value of a frame can change: a top-level field, or a field inside a nested entry. */
type Change =
  | { at: "frame"; key: string }
  | { at: "provenance" | "relations"; key: string; value: string }
  | { at: "vector"; value: number };

/** Every field of a frame but its id (the memo's key), from the field table. */
const FRAME_KEYS = Object.keys(FRAME_FIELDS).filter((key) => key !== "id");

const arbitraryChange: fc.Arbitrary<Change> = fc.oneof(
  fc.constantFrom(...FRAME_KEYS).map((key) => ({ at: "frame" as const, key })),
  fc.record({
    at: fc.constant("provenance" as const),
    key: fc.constantFrom("type", "uri", "range", "digest", "method", "by"),
    value: arbitraryWireString.map((text) => `${text}x`),
  }),
  fc.record({
    at: fc.constant("relations" as const),
    key: fc.constantFrom("rel", "target_uri", "display_name"),
    value: arbitraryWireString.map((text) => `${text}x`),
  }),
  fc.record({ at: fc.constant("vector" as const), value: fc.double({ noNaN: true, noDefaultInfinity: true }) }),
);

/** `frame` with one value changed (keys keep their order), or undefined if it has no such value. */
function changed(frame: WireObject, other: WireObject, change: Change): WireObject | undefined {
  const copy = structuredClone(frame);
  if (change.at === "frame") {
    if (!(change.key in copy) || !(change.key in other)) return undefined;
    copy[change.key] = structuredClone(other[change.key]);
    return copy;
  }
  if (change.at === "vector") {
    const vector = (copy.embedding as { vector?: number[] } | undefined)?.vector;
    if (!Array.isArray(vector) || vector.length === 0) return undefined;
    vector[0] = change.value;
    return copy;
  }
  const entry = (copy[change.at] as WireObject[])[0];
  if (entry === undefined || !(change.key in entry)) return undefined;
  entry[change.key] = `${String(entry[change.key])}${change.value}`;
  return copy;
}

describe("framesEnvelopeJson", () => {
  it("writes what JSON.stringify writes, for frames written once or many times", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom("a", "b"), arbitraryBuiltFrame), { maxLength: 6 }), (frames) => {
        for (const [id, frame] of frames) {
          const [ours, oracle] = both({ ...frame, id });
          expect(ours).toBe(oracle);
        }
      }),
      runs,
    );
  });

  it("writes the same envelope as UTF-8 bytes of one NDJSON line", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom("a", "b", "c"), arbitraryBuiltFrame), { maxLength: 4 }),
        fc.boolean(),
        fc.option(fc.nat(), { nil: undefined }),
        (frames, truncated, dropped) => {
          const result = {
            frames: frames.map(([id, frame]) => ({ ...frame, id })),
            truncated,
            ...(dropped === undefined ? {} : { dropped_estimate: dropped }),
          } as unknown as ContextQueryResult;
          // Twice: the second time every frame's bytes come from the memo.
          for (let round = 0; round < 2; round++) {
            const line = framesEnvelopeLine(result);
            expect(line.toString("utf8")).toBe(`${JSON.stringify({ type: "frames", result })}\n`);
            expect(line.toString("utf8")).toBe(`${framesEnvelopeJson(result)}\n`);
          }
        },
      ),
      runs,
    );
  });

  it("writes frames too big to keep, written afresh each time, as JSON.stringify does", () => {
    const content = `${'é"line\n'.repeat(2000)}end`; // over the memos' size caps
    const frame = {
      id: "big",
      kind: "doc",
      title: "t",
      content,
      score: 0.5,
      token_cost: 9,
      provenance: [],
      relations: [],
    };
    for (const value of [frame, { ...frame, content: `${content}!` }, frame]) {
      const [ours, oracle] = both(value);
      expect(ours).toBe(oracle);
      const result = { frames: [value], truncated: false } as unknown as ContextQueryResult;
      expect(framesEnvelopeLine(result).toString("utf8")).toBe(`${oracle}\n`);
    }
  });

  it("writes a frame again when any one of its values changed under the same id", () => {
    fc.assert(
      fc.property(arbitraryBuiltFrame, arbitraryBuiltFrame, arbitraryChange, (frame, other, change) => {
        const first = { ...frame, id: "same" };
        const second = changed(first, other, change);
        const [ours, oracle] = both(first);
        expect(ours).toBe(oracle);
        // The same frame again, as a fresh object: the reused JSON must still be right.
        expect(both(structuredClone(first))[0]).toBe(oracle);
        if (second === undefined) return;
        const [oursAfter, oracleAfter] = both(second);
        expect(oursAfter).toBe(oracleAfter);
      }),
      runs,
    );
  });
});
