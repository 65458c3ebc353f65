import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  arbitraryContextQuery,
  arbitraryUnknownFields,
  type WireObject,
  withUnknownFields,
} from "../test-support/arbitraries.js";
import { readEnvelope } from "./codec.js";
import { readQueryFast } from "./fast-query.js";
import { ContextQuerySchema } from "./schemas.js";

const runs = { numRuns: 500 };

/** The schema's reading of `value`: the authority the fast reader must match. */
function schemaRead(value: unknown) {
  const parsed = ContextQuerySchema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

/** Asserts `fast` is exactly the schema's value: same keys in the same order, same values. */
function expectSameAsSchema(fast: unknown, value: unknown): void {
  const schema = schemaRead(value);
  expect(schema).toBeDefined();
  expect(fast).toStrictEqual(schema);
  expect(Object.keys(fast as object)).toStrictEqual(Object.keys(schema as object));
}

/** A field of a query replaced by a value of any JSON type, or removed. */
const arbitraryBentQuery: fc.Arbitrary<unknown> = fc
  .tuple(
    arbitraryContextQuery,
    fc.constantFrom("goal", "query_text", "embedding", "kinds", "anchors", "max_frames", "max_tokens", "as_of"),
    fc.oneof(
      fc.jsonValue({ maxDepth: 2 }),
      fc.constantFrom(undefined, -1, 1.5, 4_294_967_296, "", Number.NaN, Number.POSITIVE_INFINITY),
      fc.array(fc.oneof(fc.constantFrom("doc", "image", 1, null, Number.POSITIVE_INFINITY), fc.string()), {
        maxLength: 3,
      }),
    ),
    fc.boolean(),
  )
  .map(([query, key, replacement, remove]) => {
    const bent: WireObject = { ...query };
    if (remove) delete bent[key];
    else bent[key] = replacement;
    return bent;
  });

describe("readQueryFast", () => {
  it("reads every valid query, with nulls and unknown fields, exactly as the schema does", () => {
    fc.assert(
      fc.property(arbitraryContextQuery, arbitraryUnknownFields, (query, extra) => {
        for (const value of [query, withUnknownFields(query, extra)]) {
          const fast = readQueryFast(value);
          expect(fast).toBeDefined();
          expectSameAsSchema(fast, value);
        }
      }),
      runs,
    );
  });

  it("accepts only what the schema accepts, and then reads the same value", () => {
    fc.assert(
      fc.property(fc.oneof(arbitraryBentQuery, fc.anything()), (value) => {
        const fast = readQueryFast(value);
        if (fast !== undefined) expectSameAsSchema(fast, value);
      }),
      runs,
    );
  });

  it("leaves out-of-range, mistyped and unknown values to the schema", () => {
    const base = { goal: "retry policy", max_frames: 2, max_tokens: 300 };
    const refused: unknown[] = [
      { ...base, goal: "" },
      { ...base, max_tokens: -1 },
      { ...base, max_tokens: 1.5 },
      { ...base, max_frames: 4_294_967_296 },
      { ...base, max_frames: "2" },
      { ...base, kinds: ["image"] },
      { ...base, kinds: "doc" },
      { ...base, anchors: [1] },
      { ...base, embedding: [0.5, Number.POSITIVE_INFINITY] },
      { ...base, as_of: 20260101 },
      { max_frames: 2, max_tokens: 300 },
      null,
      [base],
    ];
    for (const value of refused) {
      expect(readQueryFast(value)).toBeUndefined();
      expect(schemaRead(value)).toBeUndefined();
    }
    expectSameAsSchema(readQueryFast(base), base);
  });

  it("keeps the schema's error messages for queries it leaves alone", () => {
    const read = readEnvelope({ type: "query", query: { goal: "g", max_frames: 2, max_tokens: -5 } }, "host");
    expect(read).toStrictEqual({ ok: false, message: expect.stringMatching(/^invalid query: query\.max_tokens: /) });
  });
});
