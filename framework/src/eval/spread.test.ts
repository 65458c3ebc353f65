import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { goldSpread, NARROW_TOP_SHARE } from "./spread.js";

const cases = (...golds: string[][]) => golds.map((gold) => ({ gold }));

describe("goldSpread", () => {
  it("on express's shape (7 files, 26 of 60 cases on one) is narrow for both reasons", () => {
    const others = ["lib/application.js", "lib/express.js", "lib/request.js", "lib/router.js", "lib/utils.js"];
    const spread = goldSpread(
      [
        ...Array.from({ length: 26 }, () => ["lib/response.js"]),
        ...Array.from({ length: 33 }, (_, i) => [others[i % others.length] as string]),
        ["lib/view.js", "lib/utils.js"],
      ].map((gold) => ({ gold })),
      10,
    );
    expect(spread).toMatchObject({ cases: 60, files: 7, narrow: true });
    expect(spread.top[0]).toEqual({ gold: "lib/response.js", cases: 26 });
    expect(spread.goalBlind).toEqual({ acc1: 26 / 60, hit: 1, recall: 1 });
    expect(spread.reasons).toEqual([
      "one file, lib/response.js, is gold in 26 of 60 cases (43%)",
      "7 gold files in all, no more than max_frames 10: one answer cites them all",
    ]);
  });

  it("is not narrow when no file holds a quarter of the cases and there are more files than max_frames", () => {
    const spread = goldSpread(
      Array.from({ length: 40 }, (_, i) => [`src/f${i % 20}.ts`, `src/g${i}.ts`]).map((gold) => ({ gold })),
      10,
    );
    expect(spread.narrow).toBe(false);
    expect(spread.reasons).toEqual([]);
    expect(spread.files).toBe(60);
    // The 10 commonest: f0..f9, each in 2 cases; a case's recall is 1/2 when its f-file is one of them.
    expect(spread.goalBlind).toEqual({ acc1: 2 / 40, hit: 20 / 40, recall: 10 / 40 });
  });

  it("counts a file once per case, whatever its line ranges or fragments", () => {
    const spread = goldSpread(cases(["docs/a.md#L1-3", "docs/a.md#L9-12"], ["docs/a.md"], ["lunr://doc/17#x"]), 1);
    expect(spread.top).toEqual([
      { gold: "docs/a.md", cases: 2 },
      { gold: "lunr://doc/17", cases: 1 },
    ]);
    expect(spread.goalBlind).toEqual({ acc1: 2 / 3, hit: 2 / 3, recall: 2 / 3 });
  });

  it("properties: acc@1 is the commonest file's share, hit ≥ recall ≥ acc@1 ... and narrow exactly by the two rules", () => {
    const file = fc.constantFrom("a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l");
    fc.assert(
      fc.property(
        fc.array(fc.uniqueArray(file, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 40 }),
        fc.integer({ min: 1, max: 12 }),
        (golds, maxFrames) => {
          const spread = goldSpread(
            golds.map((gold) => ({ gold })),
            maxFrames,
          );
          const counts = new Map<string, number>();
          for (const gold of golds) for (const f of gold) counts.set(f, (counts.get(f) ?? 0) + 1);
          const most = Math.max(...counts.values());
          expect(spread.files).toBe(counts.size);
          expect(spread.top[0]?.cases).toBe(most);
          expect(spread.goalBlind.acc1).toBeCloseTo(most / golds.length, 12);
          expect(spread.goalBlind.hit).toBeGreaterThanOrEqual(spread.goalBlind.recall - 1e-12);
          expect(spread.goalBlind.hit).toBeGreaterThanOrEqual(spread.goalBlind.acc1 - 1e-12);
          expect(spread.goalBlind.hit).toBeLessThanOrEqual(1);
          if (counts.size <= maxFrames) expect(spread.goalBlind.recall).toBe(1);
          expect(spread.narrow).toBe(most / golds.length >= NARROW_TOP_SHARE || counts.size <= maxFrames);
          expect(spread.narrow).toBe(spread.reasons.length > 0);
        },
      ),
    );
  });
});
