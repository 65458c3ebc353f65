import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FRAME_FIELDS } from "../wire/frame-fields.js";
import { buildFrame, contentDigest, formatRange, frameContext, prepareCandidate } from "./frames.js";
import { type Candidate, definePlugin } from "./plugin.js";

const plugin = definePlugin({ name: "ids", kinds: ["doc"], search: () => [] });
/** One provider's context for every run: its id memos fill up and start over as a provider's would. */
const context = frameContext("ids-test", "/");

/** The id the docs promise: `plugin:id`, else `plugin:uri#L<a>-<b>` (or `plugin:uri`), else a digest. */
function expectedId(candidate: Candidate): string {
  if (candidate.id !== undefined) return `ids:${candidate.id}`;
  if (candidate.uri !== undefined) {
    return `ids:${candidate.uri}${candidate.range === undefined ? "" : `#${formatRange(candidate.range)}`}`;
  }
  return `ids:${contentDigest(candidate.content).slice(0, 23)}`;
}

const line = fc.oneof(fc.integer({ min: 1, max: 80 }), fc.constantFrom(2 ** 26 - 1, 2 ** 26, 2 ** 40));
const arbitraryCandidate: fc.Arbitrary<Candidate> = fc.record(
  {
    content: fc.constantFrom("alpha\n", "beta\n"),
    relevance: fc.constant(0.5),
    id: fc.constantFrom("a", "b", "file:///x.md#L1-2"),
    uri: fc.constantFrom("file:///x.md", "file:///y.md", "https://example.org/z"),
    range: fc.tuple(line, fc.nat(3)).map(([start, more]) => ({ start, end: start + more })),
  },
  { requiredKeys: ["content", "relevance"] },
);

describe("frame ids", () => {
  it("are the documented strings, however often and in whatever order candidates come back", () => {
    // Long runs over few files: the per-file memo of ranges fills up and starts over many times.
    fc.assert(
      fc.property(fc.array(arbitraryCandidate, { minLength: 50, maxLength: 300 }), (candidates) => {
        for (const candidate of candidates) {
          const prepared = prepareCandidate(candidate, plugin, context);
          if (typeof prepared === "string") throw new Error(prepared);
          expect(prepared.id).toBe(expectedId(candidate));
        }
      }),
      { numRuns: 60 },
    );
  });
});

describe("built frames", () => {
  it("carry every field of the frame field table, in its order (the writer's bytes depend on it)", () => {
    const prepared = prepareCandidate({ content: "x", relevance: 0.5, uri: "file:///r/a.ts" }, plugin, context);
    if (typeof prepared === "string") throw new Error(prepared);
    const frame = buildFrame({ candidate: prepared, content: "x", tokenCost: 1 }, context);
    expect(Object.keys(frame)).toEqual(Object.keys(FRAME_FIELDS));
  });
});
