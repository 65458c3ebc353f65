import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { arbitraryWireString } from "../test-support/arbitraries.js";
import { FRAME_KINDS } from "../wire/schemas.js";
import { CandidateSchema, candidateProblem, isCandidate } from "./candidate-check.js";

/** Values near the candidate shape: each field right, wrong-typed, null or absent. */
const field = <T>(valid: fc.Arbitrary<T>) =>
  fc.oneof(
    { weight: 6, arbitrary: valid as fc.Arbitrary<unknown> },
    { weight: 1, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.constant(null) },
    { weight: 1, arbitrary: fc.anything() },
  );
const lineNo = fc.oneof(fc.integer({ min: -2, max: 50 }), fc.constant(1.5), fc.constant(Number.MAX_SAFE_INTEGER + 2));
const nearCandidate = fc.record(
  {
    content: field(arbitraryWireString),
    relevance: field(fc.oneof(fc.double(), fc.constant(Number.NaN), fc.constant(Number.POSITIVE_INFINITY))),
    id: field(arbitraryWireString),
    kind: field(fc.oneof(fc.constantFrom(...FRAME_KINDS), fc.constant("image"))),
    title: field(arbitraryWireString),
    citationLabel: field(arbitraryWireString),
    uri: field(arbitraryWireString),
    path: field(arbitraryWireString),
    range: field(fc.record({ start: field(lineNo), end: field(lineNo) })),
    provenance: field(
      fc.array(
        field(
          fc.record(
            { type: field(arbitraryWireString), uri: field(arbitraryWireString), by: field(fc.string()) },
            { requiredKeys: [] },
          ),
        ),
        { maxLength: 3 },
      ),
    ),
    validFrom: field(fc.oneof(fc.string(), fc.date({ noInvalidDate: false }))),
    validTo: field(fc.date()),
    recordedAt: field(fc.string()),
    relations: field(
      fc.array(
        field(
          fc.record(
            { rel: field(arbitraryWireString), targetUri: field(arbitraryWireString), displayName: field(fc.string()) },
            { requiredKeys: [] },
          ),
        ),
        { maxLength: 3 },
      ),
    ),
    embedding: field(
      fc.record(
        {
          fingerprint: field(arbitraryWireString),
          vector: field(fc.array(fc.oneof(fc.double(), fc.constant(Number.NaN)), { maxLength: 4 })),
        },
        { requiredKeys: [] },
      ),
    ),
  },
  { requiredKeys: [] },
);

describe("candidate checking", () => {
  it("the fast check accepts exactly what the Zod schema accepts", () => {
    fc.assert(
      fc.property(fc.oneof({ weight: 9, arbitrary: nearCandidate }, { weight: 1, arbitrary: fc.anything() }), (raw) => {
        expect(isCandidate(raw)).toBe(CandidateSchema.safeParse(raw).success);
      }),
      { numRuns: 3000 },
    );
  });

  it("names the field at fault", () => {
    expect(candidateProblem({ content: "x", relevance: 1 })).toBeUndefined();
    expect(candidateProblem({ relevance: 1 })).toMatch(/^content: /);
    expect(candidateProblem({ content: "x", relevance: "high" })).toMatch(/^relevance: relevance must be a number/);
    expect(candidateProblem({ content: "x", relevance: 1, range: { start: 5, end: 2 } })).toMatch(
      /range: range\.end is before range\.start/,
    );
    expect(candidateProblem({ content: "x", relevance: 1, kind: "image" })).toMatch(/^kind: /);
    expect(candidateProblem({ content: "x", relevance: 1, relations: [{ rel: "", targetUri: "a" }] })).toMatch(
      /^relations\.0\.rel: /,
    );
    expect(candidateProblem("nope")).toMatch(/^candidate: /);
  });
});
