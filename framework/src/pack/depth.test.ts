import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { packFramesBeforeDepth } from "../test-support/pack-before-depth.js";
import { createTokenCounter } from "../tokens/counter.js";
import { tiktokenCount } from "../tokens/encoders.js";
import { POINTER_MAX_TOKENS, regionOdds } from "./depth.js";
import { Heap } from "./heap.js";
import { type LineRange, sliceLines } from "./lines.js";
import { before } from "./order.js";
import { packFrames } from "./pack.js";
import { keptRange } from "./regions.js";
import type { PackCandidate, PackedFrame, PackOptions, PackResolution, PackResult } from "./types.js";

/** The counter whose counts the packer writes, and an uncached one every reported cost is recounted with. */
const counter = createTokenCounter();
const fresh = createTokenCounter({ cacheSize: 0 });
const reference = tiktokenCount("o200k_base");

// ---------------------------------------------------------------------------
// Generators: a few files of real-looking lines, and regions cut from them, so every
// content, view and pointer is the exact text of its lines.

const VOCABULARY = [
  "export function retry(policy: Policy): Result {\n",
  "  const max = policy.maxAttempts ?? 3;\n",
  "\n",
  "  for (let attempt = 0; attempt < max; attempt++) {\n",
  "    try { return run(); } catch (error) { last = error; }\n",
  "  }\n",
  "}\n",
  "// 日本語のコメント 👍🏽 e\u0301\n",
  "\t\treturn x;\r\n",
  `  const table = ${JSON.stringify("word ".repeat(60))};\n`,
  "class Config {\n",
  "    backoff_ms: number = 100;\n",
];
const FILES = [
  "file:///r/a.ts",
  "file:///r/b.ts",
  "file:///r/c.md",
  "file:///r/d.py",
  "file:///r/e.go",
  "file:///r/f.rs",
];
const LINES = 40;
const fileText = (uri: string) =>
  Array.from(
    { length: LINES },
    (_, k) => VOCABULARY[(k * 7 + uri.length * 3 + uri.charCodeAt(12)) % VOCABULARY.length],
  ).join("");
const TEXTS = new Map<string, string>();
const slice = (uri: string, range: LineRange) => {
  let text = TEXTS.get(uri);
  if (text === undefined) {
    text = fileText(uri);
    TEXTS.set(uri, text);
  }
  return sliceLines(text, range.start, range.end);
};

const score = fc
  .oneof(fc.constantFrom(0, 0.2, 0.25, 0.5, 0.9, 1), fc.double({ min: 0, max: 1, noNaN: true }))
  .map((value) => (Object.is(value, -0) ? 0 : value));

/** A chain of views around `range`, each holding the one before and more. */
const views = (uri: string, range: LineRange) =>
  fc
    .array(fc.tuple(fc.nat(8), fc.nat(12), fc.option(score, { nil: undefined }), fc.boolean()), { maxLength: 3 })
    .map((growths) => {
      const chain: PackResolution[] = [];
      let inner = range;
      for (const [up, down, own, named] of growths) {
        const outer = { start: Math.max(1, inner.start - up), end: Math.min(LINES, inner.end + down) };
        if (outer.start === inner.start && outer.end === inner.end) break;
        chain.push({
          id: named ? `view-${chain.length}` : `${uri}#L${outer.start}-${outer.end}`,
          content: slice(uri, outer),
          range: outer,
          score: own ?? 0.5,
        });
        inner = outer;
      }
      return chain;
    });

/** A region of one of `files`. */
const locatedIn = (files: readonly string[], scores: fc.Arbitrary<number>) =>
  fc
    .record({
      id: fc.constantFrom("a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n"),
      uri: fc.constantFrom(...files),
      start: fc.integer({ min: 1, max: LINES }),
      length: fc.oneof(fc.nat(3), fc.integer({ min: 4, max: 15 })),
      score: scores,
      pointAt: fc.option(fc.nat(15), { nil: undefined }),
    })
    .chain(({ id, uri, start, length, score, pointAt }) => {
      const range = { start, end: Math.min(LINES, start + length) };
      return views(uri, range).map(
        (resolutions): PackCandidate => ({
          id,
          kind: "snippet",
          content: slice(uri, range),
          score,
          uri,
          range,
          ...(resolutions.length > 0 ? { resolutions } : {}),
          ...(pointAt !== undefined && range.start + pointAt <= range.end
            ? { pointerLine: range.start + pointAt }
            : {}),
        }),
      );
    });
const located = locatedIn(FILES, score);

const unlocated: fc.Arbitrary<PackCandidate> = fc.record({
  id: fc.constantFrom("u", "v", "w", "x"),
  kind: fc.constantFrom("doc" as const, "fact" as const),
  content: fc.constantFrom("a fact\n", "one line", "two\nlines\n", ""),
  score,
});

const mixed = fc.array(fc.oneof({ weight: 5, arbitrary: located }, { weight: 1, arbitrary: unlocated }), {
  maxLength: 20,
});
/** One region scoring well above many others, each of its own file: where depth and pointers meet. */
const OWN_FILES = Array.from({ length: 16 }, (_, i) => `file:///r/own-${i}.ts`);
const peaked = fc
  .tuple(
    locatedIn(FILES, fc.double({ min: 0.8, max: 1, noNaN: true })),
    fc.array(locatedIn(OWN_FILES, score), { maxLength: 16 }),
  )
  .map(([top, rest]) => [top, ...rest]);
const pool = fc.oneof(mixed, peaked);

type Limits = { maxTokens: number; maxFrames: number; scoreStep?: number };
const limits: fc.Arbitrary<Limits> = fc.record(
  {
    maxTokens: fc.oneof(
      fc.integer({ min: 0, max: 3000 }),
      fc.integer({ min: 0, max: 120 }),
      fc.integer({ min: 100, max: 800 }),
    ),
    maxFrames: fc.integer({ min: 0, max: 16 }),
    scoreStep: fc.constantFrom(0.01, 0.05, 0.2, 10),
  },
  { requiredKeys: ["maxTokens", "maxFrames"] },
);

const RUNS = { numRuns: 300 };

function pack(candidates: readonly PackCandidate[], options: Limits): PackResult<PackCandidate> {
  return packFrames(candidates, { ...options, counter } satisfies PackOptions);
}

/** The lines a frame holds (undefined for an unlocated candidate's). */
function linesOf(frame: PackedFrame<PackCandidate>): LineRange | undefined {
  const { range } = frame.candidate;
  return frame.range ?? (range === undefined ? undefined : keptRange(range, frame.keptLines));
}

function summary(result: PackResult<PackCandidate>) {
  return {
    frames: result.frames.map((f) => [f.candidate.id, f.content, f.tokenCost, f.keptLines, f.range, f.pointer]),
    totalTokens: result.totalTokens,
    truncated: result.truncated,
    dropped: result.dropped,
  };
}

// ---------------------------------------------------------------------------

describe("packing with views (real o200k_base counter)", () => {
  it("never exceeds maxTokens nor maxFrames, and every cost is exact", () => {
    fc.assert(
      fc.property(pool, limits, (candidates, options) => {
        const result = pack(candidates, options);
        const sum = result.frames.reduce((total, frame) => total + frame.tokenCost, 0);
        expect(sum).toBeLessThanOrEqual(options.maxTokens);
        expect(result.totalTokens).toBe(sum);
        expect(result.frames.length).toBeLessThanOrEqual(options.maxFrames);
        for (const frame of result.frames) expect(frame.tokenCost).toBe(fresh.count(frame.content));
      }),
      RUNS,
    );
  });

  it("ships at most one frame per region, and no two frames of one uri share a line", () => {
    fc.assert(
      fc.property(pool, limits, (candidates, options) => {
        const result = pack(candidates, options);
        const regions = result.frames.map((frame) => frame.candidate.id);
        expect(new Set(regions).size).toBe(regions.length);
        const ids = result.frames.map((frame) => frame.resolution?.id ?? frame.candidate.id);
        expect(new Set(ids).size).toBe(ids.length);
        const located = result.frames.filter((frame) => frame.candidate.uri !== undefined);
        for (const [i, a] of located.entries()) {
          for (const b of located.slice(i + 1)) {
            if (a.candidate.uri !== b.candidate.uri) continue;
            const [x, y] = [linesOf(a) as LineRange, linesOf(b) as LineRange];
            expect(x.end < y.start || y.end < x.start, `${a.candidate.id} ${b.candidate.id}`).toBe(true);
          }
        }
      }),
      RUNS,
    );
  });

  it("ships each region as itself, a cut of it, one of its views or one of its lines — exactly those lines", () => {
    fc.assert(
      fc.property(pool, limits, (candidates, options) => {
        for (const frame of pack(candidates, options).frames) {
          const { candidate } = frame;
          expect(candidates).toContain(candidate);
          if (frame.resolution !== undefined) {
            expect(candidate.resolutions).toContain(frame.resolution);
            expect(frame.content).toBe(frame.resolution.content);
            expect(frame.range).toEqual(frame.resolution.range);
          } else if (frame.pointer === true) {
            const range = frame.range as LineRange;
            expect(range.start).toBe(range.end);
            expect(frame.content).toBe(slice(candidate.uri as string, range));
            expect(frame.tokenCost).toBeLessThanOrEqual(POINTER_MAX_TOKENS);
            expect(frame.content).not.toBe(candidate.content);
          } else if (frame.keptLines !== undefined) {
            expect(candidate.content.startsWith(frame.content)).toBe(true);
          } else {
            expect(frame.content).toBe(candidate.content);
          }
          const lines = linesOf(frame);
          if (lines !== undefined && candidate.uri !== undefined) {
            expect(frame.content).toBe(slice(candidate.uri, lines));
          }
        }
      }),
      RUNS,
    );
  });

  it("a bigger budget never ships less of the top region: its lines at the smaller budget are among those at the bigger", () => {
    const budgets = fc.tuple(fc.integer({ min: 0, max: 3000 }), fc.integer({ min: 0, max: 3000 }));
    fc.assert(
      fc.property(pool, limits, budgets, (candidates, options, [x, y]) => {
        const [small, big] = x <= y ? [x, y] : [y, x];
        const top = [...new Map(candidates.map((c) => [c.id, c])).keys()]
          .map((id) => candidates.filter((c) => c.id === id).reduce((a, b) => (before(a, b) ? a : b)))
          .reduce<PackCandidate | undefined>((a, b) => (a === undefined || before(b, a) ? b : a), undefined);
        fc.pre(top !== undefined);
        const frameOf = (maxTokens: number) =>
          pack(candidates, { ...options, maxTokens }).frames.find((frame) => frame.candidate === top);
        const less = frameOf(small);
        if (less === undefined) return;
        const more = frameOf(big);
        expect(more, "the top region ships at the bigger budget too").toBeDefined();
        expect((more as PackedFrame<PackCandidate>).tokenCost).toBeGreaterThanOrEqual(less.tokenCost);
        const [inner, outer] = [linesOf(less), linesOf(more as PackedFrame<PackCandidate>)];
        if (inner !== undefined && outer !== undefined) {
          expect(outer.start <= inner.start && inner.end <= outer.end, JSON.stringify([inner, outer])).toBe(true);
        } else {
          expect((more as PackedFrame<PackCandidate>).content.startsWith(less.content)).toBe(true);
        }
      }),
      RUNS,
    );
  });

  it("ships the best region whole (or deeper) whenever it fits whole", () => {
    fc.assert(
      fc.property(pool, limits, (candidates, options) => {
        const best = candidates.reduce<PackCandidate | undefined>(
          (a, b) => (a === undefined || before(b, a) ? b : a),
          undefined,
        );
        fc.pre(best !== undefined && options.maxFrames > 0 && reference(best.content) <= options.maxTokens);
        const frame = pack(candidates, options).frames[0];
        expect(frame?.candidate).toBe(best);
        expect(frame?.pointer).toBeUndefined();
        expect(frame?.keptLines).toBeUndefined();
      }),
      RUNS,
    );
  });

  it("is deterministic: any order of the same candidates gives the same result", () => {
    const shuffled = pool.chain((candidates) =>
      fc.tuple(
        fc.constant(candidates),
        fc.shuffledSubarray(candidates, { minLength: candidates.length, maxLength: candidates.length }),
      ),
    );
    fc.assert(
      fc.property(shuffled, limits, ([candidates, permuted], options) => {
        expect(summary(pack(permuted, options))).toEqual(summary(pack(candidates, options)));
      }),
      RUNS,
    );
  });

  it("without views, and with no two candidates of one uri overlapping, packs exactly as before", () => {
    const disjoint = pool.map((candidates) => {
      const kept: PackCandidate[] = [];
      for (const { resolutions: _views, ...candidate } of candidates) {
        const { uri, range } = candidate;
        const clashes = kept.some(
          (other) =>
            other.uri === uri &&
            uri !== undefined &&
            !(
              (other.range as LineRange).end < (range as LineRange).start ||
              (range as LineRange).end < (other.range as LineRange).start
            ),
        );
        if (!clashes) kept.push(candidate);
      }
      return kept;
    });
    fc.assert(
      fc.property(disjoint, limits, (candidates, options) => {
        const old = packFramesBeforeDepth(candidates, { ...options, counter });
        expect(summary(pack(candidates, options))).toEqual(summary(old));
      }),
      RUNS,
    );
  });
});

describe("depth against breadth, by example", () => {
  // One file of 60 short lines; the top region is lines 20-24, its views the function
  // around it and the whole file.
  const text = Array.from(
    { length: 60 },
    (_, k) => `  step(${k}); // line ${k + 1} ${"of the retry loop ".repeat(k % 4)}\n`,
  ).join("");
  const uri = "file:///r/retry.ts";
  const region = (id: string, start: number, end: number, score: number, withViews = false): PackCandidate => ({
    id,
    kind: "snippet",
    content: sliceLines(text, start, end),
    score,
    uri: `${uri}?${id}`,
    range: { start, end },
    ...(withViews
      ? {
          resolutions: [
            { id: `${id}:fn`, content: sliceLines(text, 10, 40), range: { start: 10, end: 40 }, score },
            { id: `${id}:file`, content: text, range: { start: 1, end: 60 }, score },
          ],
        }
      : {}),
  });
  const others = (score: number) =>
    Array.from({ length: 19 }, (_, i) => region(`other-${String(i).padStart(2, "0")}`, 30, 36, score - i * 0.001));

  it("a region that stands clearly above the rest ships deep, and the rest ship as pointers", () => {
    const pool = [region("top", 20, 24, 0.9, true), ...others(0.5)];
    const pointers = 19 * reference(sliceLines(text, 30, 30));
    // Room for the function and a pointer (line 30) of every other region, then for the whole file and those pointers.
    for (const [view, maxTokens] of [
      ["top:fn", reference(sliceLines(text, 10, 40)) + pointers],
      ["top:file", reference(text) + pointers],
    ] as const) {
      const result = pack(pool, { maxTokens, maxFrames: 20 });
      expect(result.frames[0]).toMatchObject({ resolution: { id: view } });
      expect(result.frames).toHaveLength(20);
      expect(result.frames.slice(1).every((frame) => frame.pointer === true)).toBe(true);
      expect(result.frames.slice(1).every((frame) => frame.content === sliceLines(text, 30, 30))).toBe(true);
      expect(result).toMatchObject({ truncated: true, dropped: 0 });
    }
  });

  it("where the ranking is flat, the same budget goes to breadth: no view, every region shipped, the best whole", () => {
    const pool = [region("top", 20, 24, 0.5, true), ...others(0.5)];
    const maxTokens = reference(sliceLines(text, 10, 40)) + 19 * reference(sliceLines(text, 30, 30));
    const result = pack(pool, { maxTokens, maxFrames: 20 });
    expect(result.frames.some((frame) => frame.resolution !== undefined)).toBe(false);
    expect(result.frames).toHaveLength(20);
    const whole = result.frames.filter((frame) => frame.pointer === undefined).map((frame) => frame.candidate.id);
    expect(whole.length).toBeGreaterThan(3);
    // Equal odds: the regions that ship whole are the best ranked ones.
    const ranked = [...pool].sort((a, b) => (before(a, b) ? -1 : 1));
    expect(whole).toEqual(ranked.slice(0, whole.length).map((c) => c.id));
  });

  it("when maxFrames binds, views spend the budget breadth leaves unused", () => {
    const pool = Array.from({ length: 20 }, (_, i) => region(`r${String(i).padStart(2, "0")}`, 20, 24, 0.5, true));
    const plain = pool.map(({ resolutions: _v, ...c }) => c);
    const deep = pack(pool, { maxTokens: 8192, maxFrames: 5 });
    const breadth = pack(plain, { maxTokens: 8192, maxFrames: 5 });
    expect(breadth.totalTokens).toBeLessThan(8192 / 8);
    expect(deep.totalTokens).toBeGreaterThan(4 * breadth.totalTokens);
    expect(deep.frames.every((frame) => frame.resolution !== undefined)).toBe(true);
  });

  it("a view holding another region's lines covers it: that region is not shipped, nor counted as dropped", () => {
    const top = { ...region("top", 20, 24, 0.9, true), uri };
    const inside = { ...region("inside", 30, 32, 0.5), uri };
    const result = pack([top, inside], { maxTokens: 8192, maxFrames: 5 });
    expect(result.frames.map((frame) => [frame.candidate.id, frame.resolution?.id])).toEqual([["top", "top:file"]]);
    expect(result).toMatchObject({ dropped: 0, truncated: false });
  });

  it.each([
    ["close", 0.89, 0.7],
    ["far", 0.6, 0.5],
  ])("over every budget from 1 to 3000, the top region's lines only grow (runner-up %s)", (_gap, runnerUp, rest) => {
    // The top offers a view a line larger on each side each time, so its choice moves with
    // almost every budget;
    // a runner-up with views of its own and regions with pointers compete for the rest.
    const top: PackCandidate = {
      ...region("top", 29, 31, 0.9),
      uri,
      resolutions: Array.from({ length: 28 }, (_, k) => {
        const range = { start: 28 - k, end: 32 + k };
        return { id: `top:${k}`, content: sliceLines(text, range.start, range.end), range, score: 0.9 };
      }),
    };
    const second: PackCandidate = { ...region("second", 5, 6, runnerUp, true), uri: "file:///r/second.ts" };
    const pool = [top, second, ...others(rest)];
    let last: LineRange | undefined;
    for (let maxTokens = 1; maxTokens <= 3000; maxTokens++) {
      const frame = pack(pool, { maxTokens, maxFrames: 20 }).frames.find((f) => f.candidate === top);
      const lines = frame === undefined ? undefined : linesOf(frame);
      if (last !== undefined) {
        expect(lines, `at ${maxTokens}`).toBeDefined();
        const now = lines as LineRange;
        expect(now.start <= last.start && last.end <= now.end, `at ${maxTokens}: ${JSON.stringify([last, now])}`).toBe(
          true,
        );
      }
      last = lines ?? last;
    }
  });

  it("regionOdds: a score one step higher is twice as likely; the odds sum to 1", () => {
    const odds = regionOdds([0.7, 0.6, 0.5, 0.5], 0.1);
    expect(odds.map((p) => Math.round(p * 1000) / 1000)).toEqual([0.5, 0.25, 0.125, 0.125]);
    expect(odds.reduce((a, b) => a + b)).toBeCloseTo(1, 12);
  });
});

describe("depth counts what may ship, not the pool", () => {
  /** `size` candidates of ~6 lines, each offering its 12 lines around and its 30-line file. */
  function viewed(size: number): PackCandidate[] {
    return Array.from({ length: size }, (_, i) => {
      const uri = `file:///r/module-${i}.ts`;
      const file = Array.from({ length: 30 }, (_, k) => `  retry(${k}); // attempt ${k} of the upload\n`).join("");
      const view = (start: number, end: number) => ({
        id: `${uri}#L${start}-${end}`,
        content: sliceLines(file, start, end),
        range: { start, end },
        score: 0.5,
      });
      return {
        id: `c${i}`,
        kind: "snippet",
        content: sliceLines(file, 10, 15),
        score: i === 0 ? 0.95 : Math.round(((i * 7919) % 1000) * 0.8) / 1000,
        uri,
        range: { start: 10, end: 15 },
        resolutions: [view(7, 18), view(1, 30)],
      };
    });
  }
  function countingCounter() {
    const inner = createTokenCounter();
    const wrapped = {
      calls: 0,
      tokenizer: inner.tokenizer,
      count: (text: string) => {
        wrapped.calls++;
        return inner.count(text);
      },
      upperBound: (text: string) => inner.upperBound(text),
      surelyFits: (text: string, budget: number) => inner.surelyFits(text, budget),
      preload: () => inner.preload(),
    };
    return wrapped;
  }

  it("makes about as many exact counts for 20 000 candidates (60 000 frames on offer) as for 200", () => {
    const calls = [200, 20_000].map((size) => {
      const counting = countingCounter();
      const result = packFrames(viewed(size), { maxTokens: 2000, maxFrames: 20, counter: counting });
      expect(result.frames.some((frame) => frame.resolution !== undefined)).toBe(true);
      expect(result.totalTokens).toBeLessThanOrEqual(2000);
      return counting.calls;
    });
    // The field's 20 regions: a pointer, the candidate and two views each at most.
    expect(calls[1]).toBeLessThanOrEqual(20 * 4 + 20);
    expect(calls[1]).toBe(calls[0]);
  });
});

describe("Heap.push (depth queues its steps with it)", () => {
  it("pops best first whatever mix of heapified and pushed items it holds", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -50, max: 50 })), fc.array(fc.integer({ min: -50, max: 50 })), (a, b) => {
        const heap = new Heap([...a], (x, y) => x < y);
        for (const item of b) heap.push(item);
        const popped: number[] = [];
        for (let item = heap.pop(); item !== undefined; item = heap.pop()) popped.push(item);
        expect(popped).toEqual([...a, ...b].sort((x, y) => x - y));
      }),
      { numRuns: 300 },
    );
  });
});
