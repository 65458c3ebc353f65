import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  bytesOver4,
  type EstimatedFrame,
  estimateError,
  overPacking,
  packByEstimate,
  wordsTimes13,
} from "./bench-estimates.js";

const frame = (content: string, exact: number): EstimatedFrame => ({ content, exact });

describe("the estimates", () => {
  it("bytes/4 rounds up UTF-8 bytes; words×1.3 rounds up runs of non-space", () => {
    expect(bytesOver4("abcde")).toBe(2);
    expect(bytesOver4("é")).toBe(1);
    expect(wordsTimes13("one two  three\nfour")).toBe(6);
    expect(wordsTimes13("   ")).toBe(0);
  });

  it("estimateError: mean, signed bias, the worst error with its sign, and the total ratio", () => {
    const frames = [frame("a", 10), frame("b", 20), frame("c", 0)];
    const guesses: Record<string, number> = { a: 12, b: 10, c: 5 };
    const error = estimateError(frames, (text) => guesses[text] as number);
    expect(error.frames).toBe(2); // an exact count of 0 has no relative error
    expect(error.meanError).toBeCloseTo((0.2 + 0.5) / 2);
    expect(error.bias).toBeCloseTo((0.2 - 0.5) / 2);
    expect(error.worst).toBeCloseTo(-0.5);
    expect(error.totalRatio).toBeCloseTo(22 / 30);
  });
});

describe("packing by an estimate", () => {
  it("counts the frames that took the exact total past the budget", () => {
    const ranked = [frame("a", 40), frame("b", 40), frame("c", 40)];
    // An estimate of half the truth packs all three into a budget of 100: the third goes past.
    expect(packByEstimate(ranked, () => 20, 100, 8)).toEqual({ frames: 3, exactTokens: 120, framesPastBudget: 1 });
    expect(packByEstimate(ranked, () => 20, 100, 2)).toEqual({ frames: 2, exactTokens: 80, framesPastBudget: 0 });
    expect(overPacking([ranked, ranked.slice(0, 1)], () => 20, 100, 8)).toEqual({
      queriesOver: 1,
      framesPastBudget: 1,
      worstOvershoot: 20,
    });
  });

  const frames = fc.array(fc.record({ content: fc.string({ maxLength: 40 }), exact: fc.nat({ max: 300 }) }), {
    maxLength: 30,
  });

  it("never goes past the budget when the estimate never undercounts (the exact count included)", () => {
    const costs = fc.array(fc.nat({ max: 300 }), { maxLength: 30 });
    fc.assert(
      fc.property(
        costs,
        fc.nat({ max: 2000 }),
        fc.nat({ max: 10 }),
        fc.nat({ max: 50 }),
        (exact, budget, max, slack) => {
          const ranked = exact.map((cost, i) => frame(`frame ${i}`, cost));
          const costOf = (text: string) => exact[Number(text.slice("frame ".length))] as number;
          for (const estimate of [costOf, (text: string) => costOf(text) + slack]) {
            const packed = packByEstimate(ranked, estimate, budget, max);
            expect(packed.exactTokens).toBeLessThanOrEqual(budget);
            expect(packed.framesPastBudget).toBe(0);
          }
        },
      ),
    );
  });

  it("never ships more than max frames, and what goes past the budget is among what ships", () => {
    fc.assert(
      fc.property(frames, fc.nat({ max: 2000 }), fc.nat({ max: 10 }), fc.nat({ max: 5 }), (ranked, budget, max, k) => {
        const packed = packByEstimate(ranked, (text) => Math.floor(text.length / (k + 1)), budget, max);
        expect(packed.frames).toBeLessThanOrEqual(Math.min(max, ranked.length));
        expect(packed.framesPastBudget).toBeLessThanOrEqual(packed.frames);
        expect(packed.framesPastBudget > 0).toBe(packed.exactTokens > budget);
      }),
    );
  });
});
