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
    // Views are drawn around lines 10-20 so that nesting (and its failures) comes up often.
    resolutions: field(
      fc.array(
        field(
          fc.record(
            {
              content: field(arbitraryWireString),
              range: field(
                fc.record({
                  start: field(fc.oneof(fc.integer({ min: 1, max: 12 }), lineNo)),
                  end: field(fc.oneof(fc.integer({ min: 18, max: 30 }), lineNo)),
                }),
              ),
              relevance: field(fc.oneof(fc.double(), fc.constant(Number.NaN))),
              id: field(arbitraryWireString),
              title: field(arbitraryWireString),
              citationLabel: field(arbitraryWireString),
            },
            { requiredKeys: [] },
          ),
        ),
        { maxLength: 3 },
      ),
    ),
    pointerLine: field(lineNo),
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

/** A valid located candidate but for its views and pointer line: where nesting is checked. */
const nearLocated = fc
  .tuple(
    fc.record({
      content: arbitraryWireString,
      relevance: fc.double(),
      uri: fc.constantFrom("file:///a.ts", undefined),
      range: fc.option(
        fc.tuple(fc.integer({ min: 8, max: 16 }), fc.nat(6)).map(([start, more]) => ({ start, end: start + more })),
        { nil: undefined },
      ),
    }),
    fc.record(
      {
        resolutions: fc.oneof(
          {
            weight: 4,
            arbitrary: fc.array(
              fc.record(
                {
                  content: arbitraryWireString,
                  range: fc
                    .tuple(fc.integer({ min: 1, max: 12 }), fc.integer({ min: 14, max: 30 }))
                    .map(([start, end]) => ({ start, end })),
                  relevance: fc.double(),
                  id: arbitraryWireString,
                },
                { requiredKeys: ["content", "range"] },
              ),
              { maxLength: 3 },
            ),
          },
          { weight: 1, arbitrary: nearCandidate.map((near) => near.resolutions) },
        ),
        pointerLine: fc.oneof(fc.integer({ min: 6, max: 24 }), lineNo),
      },
      { requiredKeys: [] },
    ),
  )
  .map(([base, views]) => ({ ...base, ...views }));

describe("candidate checking", () => {
  it("the fast check accepts exactly what the Zod schema accepts", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          { weight: 6, arbitrary: nearCandidate },
          { weight: 3, arbitrary: nearLocated },
          { weight: 1, arbitrary: fc.anything() },
        ),
        (raw) => {
          expect(isCandidate(raw)).toBe(CandidateSchema.safeParse(raw).success);
        },
      ),
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
    const located = { content: "x\n", relevance: 1, uri: "file:///a.ts", range: { start: 10, end: 12 } };
    const view = (start: number, end: number) => ({ content: "y\n", range: { start, end } });
    expect(candidateProblem({ ...located, resolutions: [view(5, 20), view(1, 30)] })).toBeUndefined();
    expect(candidateProblem({ ...located, resolutions: [view(11, 20)] })).toMatch(
      /^resolutions\.0\.range: does not hold all of the candidate's range/,
    );
    expect(candidateProblem({ ...located, resolutions: [view(5, 20), view(5, 20)] })).toMatch(
      /^resolutions\.1\.range: does not hold all of the previous view's/,
    );
    expect(candidateProblem({ ...located, uri: undefined, resolutions: [view(5, 20)] })).toMatch(
      /^resolutions: resolutions need the candidate's uri and range/,
    );
    expect(candidateProblem({ ...located, pointerLine: 13 })).toMatch(
      /^pointerLine: pointerLine is not a line of range/,
    );
    expect(candidateProblem({ ...located, resolutions: [{ ...view(5, 20), relevance: "high" }] })).toMatch(
      /^resolutions\.0\.relevance: /,
    );
  });
});
