import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { budgetWindowLines, mergeWindows } from "./windows.js";

const plain = (lines: number[], context: number, lastLine: number, maxLines = 1000) =>
  mergeWindows(lines, { context, lastLine, maxLines }).map(({ start, end, matches }) => [start, end, matches]);

describe("mergeWindows", () => {
  it("gives each match its context, clipped to the file", () => {
    expect(plain([1], 3, 100)).toEqual([[1, 4, [1]]]);
    expect(plain([50], 3, 100)).toEqual([[47, 53, [50]]]);
    expect(plain([99], 3, 100)).toEqual([[96, 100, [99]]]);
  });

  it("merges windows that overlap or touch, and only those", () => {
    expect(plain([10, 14], 3, 100)).toEqual([[7, 17, [10, 14]]]); // overlap
    expect(plain([10, 17], 3, 100)).toEqual([[7, 20, [10, 17]]]); // 13 and 14 touch
    expect(plain([10, 18], 3, 100)).toEqual([
      [7, 13, [10]],
      [15, 21, [18]],
    ]); // line 14 between them
  });

  it("stops a merged window at maxLines and starts the next one after it", () => {
    expect(plain([10, 12, 14, 16], 3, 100, 9)).toEqual([
      [7, 15, [10, 12, 14]],
      [16, 19, [16]],
    ]);
  });

  it("never includes a blocked line, and drops blocked matches", () => {
    const windows = mergeWindows([10, 12, 20], {
      context: 3,
      lastLine: 100,
      maxLines: 40,
      isBlocked: (l) => l === 11 || l === 20,
    });
    expect(windows.map(({ start, end, matches }) => [start, end, matches])).toEqual([
      [7, 10, [10]],
      [12, 15, [12]],
    ]);
  });

  it("centres a lone match when its context is wider than maxLines", () => {
    expect(plain([50], 10, 100, 5)).toEqual([[48, 52, [50]]]);
  });

  const scenario = fc.record({
    lastLine: fc.integer({ min: 1, max: 300 }),
    context: fc.integer({ min: 0, max: 8 }),
    maxLines: fc.integer({ min: 1, max: 60 }),
    matches: fc.array(fc.integer({ min: -5, max: 320 }), { maxLength: 60 }),
    blocked: fc.array(fc.integer({ min: 1, max: 300 }), { maxLength: 20 }),
  });

  it("windows are ordered, disjoint, inside the file, within maxLines, free of blocked lines, and cover every usable match exactly once", () => {
    fc.assert(
      fc.property(scenario, ({ lastLine, context, maxLines, matches, blocked }) => {
        const isBlocked = (line: number) => blocked.includes(line);
        const windows = mergeWindows(matches, { lastLine, context, maxLines, isBlocked });
        let previousEnd = 0;
        for (const window of windows) {
          expect(window.start).toBeGreaterThan(previousEnd);
          expect(window.start).toBeGreaterThanOrEqual(1);
          expect(window.end).toBeLessThanOrEqual(lastLine);
          expect(window.end - window.start + 1).toBeLessThanOrEqual(maxLines);
          expect(window.matches.length).toBeGreaterThan(0);
          for (let line = window.start; line <= window.end; line++) expect(isBlocked(line)).toBe(false);
          for (const match of window.matches) {
            expect(match).toBeGreaterThanOrEqual(window.start);
            expect(match).toBeLessThanOrEqual(window.end);
          }
          previousEnd = window.end;
        }
        const usable = [...new Set(matches)]
          .filter((l) => l >= 1 && l <= lastLine && !isBlocked(l))
          .sort((a, b) => a - b);
        expect(windows.flatMap((w) => w.matches)).toEqual(usable);
      }),
    );
  });

  it("without caps or blocked lines, equals the union of the match intervals (overlapping or touching ones joined)", () => {
    fc.assert(
      fc.property(scenario, ({ lastLine, context, matches }) => {
        const usable = [...new Set(matches)].filter((l) => l >= 1 && l <= lastLine).sort((a, b) => a - b);
        const union: [number, number][] = [];
        for (const line of usable) {
          const low = Math.max(1, line - context);
          const high = Math.min(lastLine, line + context);
          const last = union[union.length - 1];
          if (last !== undefined && low <= last[1] + 1) last[1] = Math.max(last[1], high);
          else union.push([low, high]);
        }
        const windows = mergeWindows(matches, { lastLine, context, maxLines: Number.MAX_SAFE_INTEGER });
        expect(windows.map((w) => [w.start, w.end])).toEqual(union);
      }),
    );
  });
});

describe("budgetWindowLines", () => {
  it("sizes windows to the budget: a hundredth of it in lines, at least 8, never past the option", () => {
    expect(budgetWindowLines(2048, 40)).toBe(20);
    expect(budgetWindowLines(1024, 40)).toBe(10);
    expect(budgetWindowLines(4096, 40)).toBe(40);
    expect(budgetWindowLines(100_000, 40)).toBe(40);
    expect(budgetWindowLines(256, 40)).toBe(8);
    expect(budgetWindowLines(0, 40)).toBe(8);
    expect(budgetWindowLines(2048, 5)).toBe(5);
  });

  it("is at least 1 and at most maxLines for any budget", () => {
    fc.assert(
      fc.property(fc.nat(), fc.integer({ min: 1, max: 1000 }), (tokens, maxLines) => {
        const lines = budgetWindowLines(tokens, maxLines);
        expect(lines).toBeGreaterThanOrEqual(1);
        expect(lines).toBeLessThanOrEqual(maxLines);
        expect(budgetWindowLines(tokens + 100, maxLines)).toBeGreaterThanOrEqual(lines);
      }),
    );
  });
});
