import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type GitFixture, makeGitFixture } from "../../../test/test-support/git-fixture.js";
import { commitHunks, covers, type Hunk, lineMetrics, parseHunks, type ScoredFrame } from "./lines.js";
import { mineCases } from "./mine.js";
import { runEval } from "./run.js";
import { type FrameRef, parseGold, readRef } from "./score.js";
import type { Answer, CaseResult, EvalReport } from "./types.js";

const RANGES_PROVIDER = fileURLToPath(new URL("../../../test/fixtures/ranges-provider.mjs", import.meta.url));

let fixture: GitFixture;
beforeAll(() => {
  fixture = makeGitFixture();
});
afterAll(() => {
  rmSync(fixture.dir, { recursive: true, force: true });
});

describe("parseHunks", () => {
  it("reads each hunk header in the old side's numbering: changes, deletions, insertions", () => {
    const diff = [
      "diff --git a/src/a.ts b/src/a.ts",
      "--- a/src/a.ts",
      "+++ b/src/a.ts",
      "@@ -0,0 +1,2 @@",
      "+// a header comment",
      "+@@ -90,5 +90,5 @@ content that looks like a header is content",
      "@@ -7 +9 @@ function context()",
      "-old",
      "+new",
      "@@ -12,3 +13,0 @@",
      "-gone",
      "-gone",
      "-gone",
      "@@ -20,0 +21,4 @@",
      "+added",
      "\\ No newline at end of file",
    ].join("\n");
    expect(parseHunks(diff, "src/a.ts")).toEqual([
      { path: "src/a.ts", start: 1, end: 1 }, // inserted at the top: before line 1
      { path: "src/a.ts", start: 7, end: 7 }, // one line changed
      { path: "src/a.ts", start: 12, end: 14 }, // three lines deleted
      { path: "src/a.ts", start: 20, end: 21 }, // inserted after line 20: lines 20 and 21
    ]);
  });
});

describe("commitHunks", () => {
  it("gives the fixture's changed lines exactly, at the parent's line numbers", async () => {
    const { commits } = fixture;
    // theme: one line appended after line 20 of 20 — a pure insertion.
    expect(await commitHunks(fixture.dir, commits.root as string, commits.side as string, ["src/theme.ts"])).toEqual([
      { path: "src/theme.ts", start: 20, end: 21 },
    ]);
    // parser: line 2 rewritten and line 4 ("// renamed", added by the sweep before it) deleted.
    expect(
      await commitHunks(fixture.dir, commits.sweep as string, commits.parser as string, ["src/parser.ts"]),
    ).toEqual([
      { path: "src/parser.ts", start: 2, end: 2 },
      { path: "src/parser.ts", start: 4, end: 4 },
    ]);
    // retry: the first two of three lines replaced by nine (the closing brace kept).
    expect(await commitHunks(fixture.dir, commits.root as string, commits.retry as string, ["src/retry.ts"])).toEqual([
      { path: "src/retry.ts", start: 1, end: 2 },
    ]);
  });

  it("mined cases carry their hunks", async () => {
    const { cases } = await mineCases(fixture.dir, { cases: 10 });
    expect(cases.map((c) => c.hunks)).toEqual([
      [{ path: "src/theme.ts", start: 20, end: 21 }],
      [
        { path: "src/parser.ts", start: 2, end: 2 },
        { path: "src/parser.ts", start: 4, end: 4 },
      ],
      [{ path: "src/retry.ts", start: 1, end: 2 }],
    ]);
  });
});

const ref = (path: string, lines?: [number, number]): FrameRef => ({ path, lines });
const frame = (tokens: number, ...refs: FrameRef[]): ScoredFrame => ({ refs, tokens });

describe("lineMetrics", () => {
  const gold = [parseGold("src/parser.ts", ["/root"])];
  const hunks: Hunk[] = [
    { path: "src/parser.ts", start: 2, end: 2 },
    { path: "src/parser.ts", start: 4, end: 4 },
  ];

  it("covers a hunk by overlap only: adjacent frames, other files and frames without a range cover nothing", () => {
    expect(covers(ref("src/parser.ts", [1, 2]), hunks[0] as Hunk)).toBe(true);
    expect(covers(ref("src/parser.ts", [2, 9]), hunks[0] as Hunk)).toBe(true);
    expect(covers(ref("src/parser.ts", [3, 3]), hunks[0] as Hunk)).toBe(false); // adjacent, below
    expect(covers(ref("src/parser.ts", [1, 1]), hunks[0] as Hunk)).toBe(false); // adjacent, above
    expect(covers(ref("src/parser.ts"), hunks[0] as Hunk)).toBe(false); // no range
    expect(covers(ref("src/other.ts", [1, 9]), hunks[0] as Hunk)).toBe(false);
  });

  it("scores hunk recall, acc@1 and the token shares of a hand-built answer", () => {
    const metrics = lineMetrics(
      [
        frame(10, ref("src/parser.ts", [3, 3])), // gold file, between the hunks
        frame(30, ref("src/theme.ts", [1, 20])),
        frame(20, ref("src/parser.ts", [1, 2])), // the first hunk
        frame(40, ref("src/parser.ts")), // the whole file, but no range: covers nothing
      ],
      gold,
      hunks,
    );
    expect(metrics).toEqual({ hunkRecall: 0.5, acc1: 1, goldShare: 70 / 100, hunkShare: 20 / 100 });
  });

  it("acc@1 looks at the first frame that names a file; a case without hunks has no hunk recall", () => {
    const other = lineMetrics(
      [frame(5), frame(5, ref("src/theme.ts", [1, 2])), frame(5, ref("src/parser.ts"))],
      gold,
      [],
    );
    expect(other).toEqual({ hunkRecall: null, acc1: 0, goldShare: 5 / 15, hunkShare: 0 });
    const first = lineMetrics([frame(5), frame(5, ref("src/parser.ts", [9, 9]))], gold, hunks);
    expect(first.acc1).toBe(1);
    expect(lineMetrics([], gold, hunks)).toEqual({ hunkRecall: 0, acc1: 0, goldShare: 0, hunkShare: 0 });
  });

  const range = fc
    .tuple(fc.integer({ min: 1, max: 60 }), fc.integer({ min: 0, max: 20 }))
    .map(([start, more]): [number, number] => [start, start + more]);
  const frames = fc.array(
    fc.record({
      tokens: fc.integer({ min: 0, max: 500 }),
      path: fc.constantFrom("src/parser.ts", "src/theme.ts"),
      lines: fc.option(range, { nil: undefined }),
    }),
    { maxLength: 8 },
  );
  const hunkList = fc.array(
    range.map(([start, end]): Hunk => ({ path: "src/parser.ts", start, end })),
    { minLength: 1, maxLength: 5 },
  );
  const scored = (list: { tokens: number; path: string; lines?: [number, number] }[]) =>
    list.map((f) => frame(f.tokens, ref(f.path, f.lines)));

  it("property: every metric lies in [0, 1], and tokens on hunks are tokens in gold files", () => {
    fc.assert(
      fc.property(frames, hunkList, (list, someHunks) => {
        const m = lineMetrics(scored(list), gold, someHunks);
        for (const value of [m.hunkRecall ?? 0, m.acc1, m.goldShare, m.hunkShare]) {
          expect(value).toBeGreaterThanOrEqual(0);
          expect(value).toBeLessThanOrEqual(1);
        }
        expect(m.hunkShare).toBeLessThanOrEqual(m.goldShare + 1e-12);
      }),
    );
  });

  it("property: growing a frame's range, or shipping one more frame, never lowers hunk recall", () => {
    fc.assert(
      fc.property(
        frames,
        hunkList,
        fc.nat(),
        fc.nat({ max: 10 }),
        fc.nat({ max: 10 }),
        (list, someHunks, which, before, after) => {
          const base = lineMetrics(scored(list), gold, someHunks).hunkRecall as number;
          if (list.length > 0) {
            const index = which % list.length;
            const grown = list.map((f, i) =>
              i === index && f.lines !== undefined
                ? { ...f, lines: [Math.max(1, f.lines[0] - before), f.lines[1] + after] as [number, number] }
                : f,
            );
            expect(lineMetrics(scored(grown), gold, someHunks).hunkRecall as number).toBeGreaterThanOrEqual(base);
          }
          const more = [...list, { tokens: 1, path: "src/parser.ts", lines: [1, 3] as [number, number] }];
          expect(lineMetrics(scored(more), gold, someHunks).hunkRecall as number).toBeGreaterThanOrEqual(base);
        },
      ),
    );
  });
});

/** Line metrics recomputed from an answer's frames as the report lists them (`path#La-b`). */
function recomputed(answer: Answer, kase: CaseResult, root: string) {
  const roots = [root];
  return lineMetrics(
    answer.frames.map((f) => ({ refs: [readRef(f.ref, roots) as FrameRef], tokens: f.tokens })),
    kase.gold.map((g) => parseGold(g, roots)),
    kase.hunks,
  );
}

describe("runEval at line level", () => {
  it("scores a provider whose frames are known to the line, and BM25 the same way, in the same run", async () => {
    const shipped = [
      { path: "src/parser.ts", start: 3, end: 3 }, // adjacent to both parser hunks (2 and 4): covers neither
      { path: "src/theme.ts", start: 20, end: 20 }, // overlaps theme's insertion after line 20
      { path: "src/parser.ts", start: 1, end: 2 }, // overlaps parser's hunk at line 2
      { path: "src/retry.ts" }, // the whole of the gold file, without a range: covers nothing
      { path: "src/colors.ts", start: 1, end: 5 }, // no gold, no hunk
    ];
    const report: EvalReport = await runEval({
      provider: { command: process.execPath, args: [RANGES_PROVIDER, "{root}", JSON.stringify(shipped)] },
      source: { kind: "git", repo: fixture.dir },
      budgets: [1024],
      warn: () => {},
    });
    const [side, parser, retry] = report.cases;
    const ours = (kase: CaseResult | undefined) => kase?.budgets[0]?.ours[0] as Answer;
    expect(ours(side).frames.map((f) => [f.ref, f.gold, f.hunk])).toEqual([
      ["src/parser.ts#L3-3", false, false],
      ["src/theme.ts#L20-20", true, true],
      ["src/parser.ts#L1-2", false, false],
      ["src/retry.ts", false, false],
      ["src/colors.ts#L1-5", false, false],
    ]);
    // Token shares, from each answer's own frames (the trees differ, so do the costs).
    const costs = (kase: CaseResult | undefined) => {
      const list = ours(kase).frames.map((f) => f.tokens);
      return { list, total: list.reduce((x, y) => x + y, 0) };
    };
    const s = costs(side);
    expect(ours(side)).toMatchObject({
      recall: 1,
      hunkRecall: 1,
      acc1: 0,
      goldShare: (s.list[1] as number) / s.total,
      hunkShare: (s.list[1] as number) / s.total,
    });
    const p = costs(parser);
    expect(ours(parser)).toMatchObject({
      recall: 1,
      hunkRecall: 0.5,
      acc1: 1,
      goldShare: ((p.list[0] as number) + (p.list[2] as number)) / p.total,
      hunkShare: (p.list[2] as number) / p.total,
    });
    const r = costs(retry);
    expect(ours(retry)).toMatchObject({
      recall: 1,
      hunkRecall: 0,
      acc1: 0,
      goldShare: (r.list[3] as number) / r.total,
      hunkShare: 0,
    });
    // BM25's answers are scored by the same functions from the windows it shipped.
    for (const kase of report.cases) {
      const bm25 = kase.budgets[0]?.bm25 as Answer;
      expect(bm25.frames.length).toBeGreaterThan(0);
      expect(bm25).toMatchObject(recomputed(bm25, kase, fixture.dir));
      // Every file is shorter than a 40-line window: a window of a gold file is the whole file, so it covers every hunk.
      expect(bm25.hunkRecall).toBe(bm25.recall);
    }
    const all = report.summary.find((row) => row.split === "all");
    expect(all?.hunkCases).toBe(3);
    expect(all?.ours.hunkRecall).toBeCloseTo((1 + 0.5 + 0) / 3, 12);
    expect(all?.ours.acc1).toBeCloseTo(1 / 3, 12);
    expect(all?.ratio?.hunkRecall).toBeCloseTo(
      (all?.ours.hunkRecall as number) / (all?.bm25?.hunkRecall as number),
      12,
    );
    expect(all?.ratio?.acc1).toBeCloseTo((all?.ours.acc1 as number) / (all?.bm25?.acc1 as number), 12);
  });

  it("scores labelled path#Lstart-end gold as hunks, and leaves hunk recall out for cases without ranges", async () => {
    const root = mkdtempSync(join(tmpdir(), "ocp-eval-lines-"));
    try {
      mkdirSync(join(root, "guide"));
      const numbered = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1} of the guide`).join("\n");
      writeFileSync(join(root, "guide", "retry.md"), `${numbered(50)}\n`);
      writeFileSync(join(root, "guide", "colors.md"), `${numbered(10)}\n`);
      const shipped = [
        { path: "guide/retry.md", start: 10, end: 19 },
        { path: "guide/colors.md", start: 1, end: 3 },
      ];
      const report = await runEval({
        provider: { command: process.execPath, args: [RANGES_PROVIDER, root, JSON.stringify(shipped)] },
        source: {
          kind: "labelled",
          root,
          cases: [
            // Two ranges, one shipped (10-19 overlaps 15-30), one not (40-45).
            {
              id: "a",
              goal: "retries with backoff",
              gold: ["guide/retry.md#L15-30", "guide/retry.md#L40-45"],
              heldOut: false,
            },
            { id: "b", goal: "the colour palette", gold: ["guide/colors.md"], heldOut: false },
          ],
        },
        budgets: [4096],
        baseline: false,
        warn: () => {},
      });
      expect(report.cases.map((c) => c.hunks)).toEqual([
        [
          { path: "guide/retry.md", start: 15, end: 30 },
          { path: "guide/retry.md", start: 40, end: 45 },
        ],
        [],
      ]);
      const answers = report.cases.map((c) => c.budgets[0]?.ours[0]);
      expect(answers.map((a) => a?.hunkRecall)).toEqual([0.5, null]);
      expect(answers.map((a) => a?.acc1)).toEqual([1, 0]);
      const all = report.summary.find((row) => row.split === "all");
      expect(all?.hunkCases).toBe(1);
      expect(all?.ours.hunkRecall).toBe(0.5);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
