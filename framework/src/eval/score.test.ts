import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ContextFrame } from "../wire/schemas.js";
import { citedGold, cites, frameRefs, parseGold, parseLines, readRef, scoreAnswer } from "./score.js";

const ROOT = "/srv/tree";
const roots = [ROOT];
const sets = (...frames: number[][]) => frames.map((gold) => new Set(gold));

function frame(fields: Partial<ContextFrame>): ContextFrame {
  return {
    id: "f",
    kind: "snippet",
    title: "t",
    content: "",
    score: 0.5,
    token_cost: 1,
    provenance: [],
    relations: [],
    ...fields,
  };
}

describe("scoreAnswer", () => {
  it("scores a hand-built answer: recall, hit, MRR of the first gold frame, nDCG", () => {
    // Gold a (0) and b (1); frames: miss, a, a again, b.
    const metrics = scoreAnswer(sets([], [0], [0], [1]), 2, 20);
    expect(metrics.recall).toBe(1);
    expect(metrics.hit).toBe(1);
    expect(metrics.mrr).toBe(1 / 2);
    // Gains at ranks 2 and 4 (the repeat of a gains nothing); ideal: ranks 1 and 2.
    expect(metrics.ndcg).toBeCloseTo((1 / Math.log2(3) + 1 / Math.log2(5)) / (1 + 1 / Math.log2(3)), 12);
  });

  it("gives 0 everywhere when nothing cites the gold, and 1 everywhere for a perfect answer", () => {
    expect(scoreAnswer(sets([], []), 2, 20)).toEqual({ recall: 0, hit: 0, mrr: 0, ndcg: 0 });
    expect(scoreAnswer([], 1, 20)).toEqual({ recall: 0, hit: 0, mrr: 0, ndcg: 0 });
    expect(scoreAnswer(sets([0], [1], [2]), 3, 20)).toEqual({ recall: 1, hit: 1, mrr: 1, ndcg: 1 });
  });

  it("counts a gold file cited by several frames once", () => {
    expect(scoreAnswer(sets([0], [0], [0]), 3, 20).recall).toBeCloseTo(1 / 3, 12);
  });

  const answers = fc.integer({ min: 1, max: 4 }).chain((gold) =>
    fc.record({
      gold: fc.constant(gold),
      frames: fc.array(fc.subarray(Array.from({ length: gold }, (_, i) => i)), { maxLength: 12 }),
    }),
  );

  it("property: every metric lies in [0, 1], and hit is 1 exactly when recall is above 0", () => {
    fc.assert(
      fc.property(answers, ({ gold, frames }) => {
        const m = scoreAnswer(sets(...frames), gold, 20);
        for (const value of [m.recall, m.hit, m.mrr, m.ndcg]) expect(value).toBeGreaterThanOrEqual(0);
        for (const value of [m.recall, m.hit, m.mrr, m.ndcg]) expect(value).toBeLessThanOrEqual(1 + 1e-12);
        expect(m.hit === 1).toBe(m.recall > 0);
      }),
    );
  });

  it("property: a miss put in front never raises MRR or nDCG; dropping the tail never raises recall", () => {
    fc.assert(
      fc.property(answers, fc.nat(12), ({ gold, frames }, cut) => {
        const base = scoreAnswer(sets(...frames), gold, 20);
        const pushed = scoreAnswer(sets([], ...frames), gold, 20);
        expect(pushed.mrr).toBeLessThanOrEqual(base.mrr);
        expect(pushed.ndcg).toBeLessThanOrEqual(base.ndcg + 1e-12);
        expect(pushed.recall).toBe(base.recall);
        expect(scoreAnswer(sets(...frames.slice(0, cut)), gold, 20).recall).toBeLessThanOrEqual(base.recall);
      }),
    );
  });
});

describe("what a frame cites", () => {
  it("reads file URIs under the root as relative paths, with the provenance range", () => {
    const refs = frameRefs(
      frame({
        uri: `file://${ROOT}/src/a.ts`,
        provenance: [{ type: "file", uri: `file://${ROOT}/src/a.ts`, range: "L3-9" }],
      }),
      roots,
    );
    expect(refs).toContainEqual({ path: "src/a.ts", fragment: undefined, lines: [3, 9] });
  });

  it("does not take a file outside the root for one inside it", () => {
    expect(readRef("file:///srv/treehouse/src/a.ts", roots)).toEqual({
      uri: "file:///srv/treehouse/src/a.ts",
      fragment: undefined,
      lines: undefined,
    });
    expect(readRef("../outside.ts", roots)).toBeUndefined();
  });

  it("matches gold by path, by overlapping lines, by fragment, or by URI", () => {
    const ref = { path: "docs/x.md", lines: [10, 20] as const };
    expect(cites(ref, parseGold("docs/x.md", roots))).toBe(true);
    expect(cites(ref, parseGold("docs/x.md#L20-30", roots))).toBe(true);
    expect(cites(ref, parseGold("docs/x.md#L21-30", roots))).toBe(false);
    expect(cites(ref, parseGold("docs/y.md", roots))).toBe(false);
    expect(cites({ path: "docs/x.md", fragment: "consent" }, parseGold("docs/x.md#consent", roots))).toBe(true);
    expect(cites({ path: "docs/x.md", fragment: "other" }, parseGold("docs/x.md#consent", roots))).toBe(false);
    expect(cites({ uri: "lunr://doc/3" }, parseGold("lunr://doc/3", roots))).toBe(true);
    expect(cites({ uri: "lunr://doc/4" }, parseGold("lunr://doc/3", roots))).toBe(false);
    expect(cites({ path: "src/a.ts" }, parseGold(`file://${ROOT}/src/a.ts`, roots))).toBe(true);
  });

  it("gives each frame the gold indices it cites", () => {
    const gold = ["src/a.ts", "src/b.ts"].map((g) => parseGold(g, roots));
    const cited = citedGold(
      [[{ path: "src/b.ts" }], [{ path: "src/c.ts" }], [{ path: "src/a.ts" }, { path: "src/b.ts" }]],
      gold,
    );
    expect(cited.map((set) => [...set].sort())).toEqual([[1], [], [0, 1]]);
  });

  it("reads line ranges as the providers write them", () => {
    expect(parseLines("L3-9")).toEqual([3, 9]);
    expect(parseLines("L7")).toEqual([7, 7]);
    expect(parseLines("12-40")).toEqual([12, 40]);
    expect(parseLines("L9-3")).toBeUndefined();
    expect(parseLines("section")).toBeUndefined();
  });
});
