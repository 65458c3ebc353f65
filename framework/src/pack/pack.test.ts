import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createTokenCounter, type TokenCounter } from "../tokens/counter.js";
import { tiktokenCount } from "../tokens/encoders.js";
import { FRAME_KINDS, type FrameKind } from "../wire/schemas.js";
import { cutToFit, type PackCandidate, type PackOptions, type PackResult, packFrames } from "./pack.js";

/** The counter whose counts the packer writes; shared so its cache is exercised across runs. */
const counter = createTokenCounter();
/** A second, uncached counter: every reported cost is recounted with it. */
const fresh = createTokenCounter({ cacheSize: 0 });
/** The reference tokenizer, for expected values in the examples. */
const reference = tiktokenCount("o200k_base");

// ---------------------------------------------------------------------------
// Generators

const contentUnit = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      "the",
      "packer",
      "return x;",
      " ",
      "  ",
      "\t",
      "日本語",
      "é",
      "👍🏽",
      "👨‍👩‍👧",
      "{",
      "}",
      "1234",
      "<|endoftext|>",
      "\uFEFF",
      "\u0085",
    ),
  },
  { weight: 1, arbitrary: fc.string({ unit: "grapheme", minLength: 1, maxLength: 1 }) },
);

/** Content of whole lines, each ended by `\n` or `\r\n`, the last one maybe unterminated; sometimes empty. */
const content = fc
  .tuple(
    fc.array(fc.tuple(fc.string({ unit: contentUnit, maxLength: 20 }), fc.constantFrom("\n", "\r\n")), {
      maxLength: 10,
    }),
    fc.boolean(),
  )
  .map(([lines, terminated]) => {
    const text = lines.map(([line, end]) => line + end).join("");
    return terminated || lines.length === 0 ? text : text.replace(/\r?\n$/, "");
  });

const candidate: fc.Arbitrary<PackCandidate> = fc.record({
  // Few ids, so duplicates are common.
  id: fc.constantFrom("a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"),
  kind: fc.constantFrom(...FRAME_KINDS),
  content,
  // Ties are common; -0 never appears on the wire.
  score: fc
    .oneof(fc.constantFrom(0, 0.25, 0.5, 0.75, 1), fc.double({ min: 0, max: 1, noNaN: true }))
    .map((score) => (Object.is(score, -0) ? 0 : score)),
});

const pool = fc.array(candidate, { maxLength: 30 });

type Limits = { maxTokens: number; maxFrames: number; kinds?: FrameKind[] };

const limits: fc.Arbitrary<Limits> = fc.record(
  {
    maxTokens: fc.oneof(fc.integer({ min: 0, max: 2000 }), fc.integer({ min: 0, max: 60 })),
    maxFrames: fc.integer({ min: 0, max: 30 }),
    kinds: fc.subarray([...FRAME_KINDS]),
  },
  { requiredKeys: ["maxTokens", "maxFrames"] },
);

const RUNS = { numRuns: 200 };

// ---------------------------------------------------------------------------
// Brute-force restatements of the contract, independent of pack.ts

/** Candidates of a requested kind (all kinds when `kinds` is absent or empty). */
function ofRequestedKinds(candidates: readonly PackCandidate[], kinds?: readonly FrameKind[]): PackCandidate[] {
  return candidates.filter((c) => kinds === undefined || kinds.length === 0 || kinds.includes(c.kind));
}

/** Per id, the documented winner: the higher score, then the smaller content. */
function dedupe(candidates: readonly PackCandidate[]): Map<string, PackCandidate> {
  const best = new Map<string, PackCandidate>();
  for (const c of candidates) {
    const seen = best.get(c.id);
    if (seen === undefined || c.score > seen.score || (c.score === seen.score && c.content < seen.content)) {
      best.set(c.id, c);
    }
  }
  return best;
}

function eligiblePool(candidates: readonly PackCandidate[], kinds?: readonly FrameKind[]): PackCandidate[] {
  return [...dedupe(ofRequestedKinds(candidates, kinds)).values()];
}

/** Rank of the documented order: score descending, then id ascending. */
function byRank(a: PackCandidate, b: PackCandidate): number {
  return b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

const newlineCount = (text: string) => text.split("\n").length - 1;

function pack(candidates: readonly PackCandidate[], options: Limits, using: TokenCounter = counter) {
  return packFrames(candidates, { ...options, counter: using } satisfies PackOptions);
}

/** What a result says, without object identities: for comparing two packings. */
function summary(result: PackResult<PackCandidate>) {
  return {
    frames: result.frames.map((f) => ({
      id: f.candidate.id,
      score: f.candidate.score,
      content: f.content,
      tokenCost: f.tokenCost,
      keptLines: f.keptLines,
    })),
    totalTokens: result.totalTokens,
    truncated: result.truncated,
    dropped: result.dropped,
  };
}

// ---------------------------------------------------------------------------

describe("packFrames properties (real o200k_base counter)", () => {
  it("never exceeds maxTokens, and totalTokens is the sum of the frames' costs", () => {
    fc.assert(
      fc.property(pool, limits, (candidates, options) => {
        const result = pack(candidates, options);
        const sum = result.frames.reduce((total, frame) => total + frame.tokenCost, 0);
        expect(sum).toBeLessThanOrEqual(options.maxTokens);
        expect(result.totalTokens).toBe(sum);
      }),
      RUNS,
    );
  });

  it("never ships more than maxFrames frames", () => {
    fc.assert(
      fc.property(pool, limits, (candidates, options) => {
        expect(pack(candidates, options).frames.length).toBeLessThanOrEqual(options.maxFrames);
      }),
      RUNS,
    );
  });

  it("reports every frame's exact cost (recounted with a fresh, uncached counter)", () => {
    fc.assert(
      fc.property(pool, limits, (candidates, options) => {
        for (const frame of pack(candidates, options).frames) {
          expect(frame.tokenCost).toBe(fresh.count(frame.content));
        }
      }),
      RUNS,
    );
  });

  it("ships only requested kinds, each id once, as the dedupe winner, in non-increasing score", () => {
    fc.assert(
      fc.property(pool, limits, (candidates, options) => {
        const result = pack(candidates, options);
        const winners = dedupe(ofRequestedKinds(candidates, options.kinds));
        const ids = result.frames.map((frame) => frame.candidate.id);
        expect(new Set(ids).size).toBe(ids.length);
        for (const frame of result.frames) {
          expect(candidates).toContain(frame.candidate);
          if (options.kinds !== undefined && options.kinds.length > 0)
            expect(options.kinds).toContain(frame.candidate.kind);
          const winner = winners.get(frame.candidate.id)!;
          expect([frame.candidate.score, frame.candidate.content]).toEqual([winner.score, winner.content]);
        }
        for (let i = 1; i < result.frames.length; i++) {
          expect(result.frames[i]!.candidate.score).toBeLessThanOrEqual(result.frames[i - 1]!.candidate.score);
        }
      }),
      RUNS,
    );
  });

  it("cuts only to a proper prefix of whole lines, and keptLines counts them", () => {
    fc.assert(
      fc.property(pool, limits, (candidates, options) => {
        for (const frame of pack(candidates, options).frames) {
          const whole = frame.candidate.content;
          if (frame.keptLines === undefined) {
            expect(frame.content).toBe(whole);
            continue;
          }
          expect(frame.content.length).toBeGreaterThan(0);
          expect(frame.content.length).toBeLessThan(whole.length);
          expect(whole.startsWith(frame.content)).toBe(true);
          // A proper prefix of whole lines ends just past a line's "\n".
          expect(frame.content.endsWith("\n")).toBe(true);
          expect(frame.keptLines).toBe(newlineCount(frame.content));
        }
      }),
      RUNS,
    );
  });

  it("accounts for every eligible candidate: shipped or dropped; truncated iff something was dropped or cut", () => {
    fc.assert(
      fc.property(pool, limits, (candidates, options) => {
        const result = pack(candidates, options);
        const eligible = eligiblePool(candidates, options.kinds);
        expect(result.frames.length + result.dropped).toBe(eligible.length);
        const someCut = result.frames.some((frame) => frame.content !== frame.candidate.content);
        expect(result.truncated).toBe(result.dropped > 0 || someCut);
      }),
      RUNS,
    );
  });

  it("ships everything whole when everything fits, even with nothing to spare", () => {
    const pools = fc
      .tuple(pool, fc.subarray([...FRAME_KINDS]), fc.nat({ max: 3 }), fc.nat({ max: 3 }))
      .map(([candidates, kinds, tokenSlack, frameSlack]) => {
        const eligible = eligiblePool(candidates, kinds);
        const cost = eligible.reduce((total, c) => total + reference(c.content), 0);
        const options: Limits = { maxTokens: cost + tokenSlack, maxFrames: eligible.length + frameSlack, kinds };
        return { candidates, options, eligible };
      });
    fc.assert(
      fc.property(pools, ({ candidates, options, eligible }) => {
        const result = pack(candidates, options);
        expect(result.frames.map((f) => f.candidate.id).sort()).toEqual(eligible.map((c) => c.id).sort());
        for (const frame of result.frames) {
          expect(frame.content).toBe(frame.candidate.content);
          expect(frame.keptLines).toBeUndefined();
        }
        expect(result.dropped).toBe(0);
        expect(result.truncated).toBe(false);
      }),
      RUNS,
    );
  });

  it("ships the best eligible candidate first whenever it or its first line fits", () => {
    fc.assert(
      fc.property(pool, limits, (candidates, options) => {
        const eligible = eligiblePool(candidates, options.kinds).sort(byRank);
        const top = eligible[0];
        const result = pack(candidates, options);
        if (top === undefined || options.maxFrames === 0) {
          expect(result.frames).toEqual([]);
          return;
        }
        const firstLine = top.content.includes("\n")
          ? top.content.slice(0, top.content.indexOf("\n") + 1)
          : top.content;
        const wholeFits = reference(top.content) <= options.maxTokens;
        const lineFits = firstLine !== top.content && reference(firstLine) <= options.maxTokens;
        expect(result.frames[0]?.candidate.id === top.id).toBe(wholeFits || lineFits);
        if (wholeFits) expect(result.frames[0]?.content).toBe(top.content);
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
});

describe("packFrames examples that pin the objective", () => {
  const lines = [
    "The retry policy lives in Config::retry.\n",
    "max_attempts bounds the tries.\n",
    "backoff_ms doubles.",
  ];
  const long = lines.join("");
  const twoLines = lines[0]! + lines[1]!;

  it("cuts a higher-scored candidate that does not fit whole rather than skip it for a smaller, lower one", () => {
    const best: PackCandidate = { id: "best", kind: "doc", content: long, score: 0.9 };
    const small: PackCandidate = { id: "small", kind: "doc", content: "tiny", score: 0.5 };
    const maxTokens = reference(twoLines);
    expect(reference(long)).toBeGreaterThan(maxTokens);
    expect(reference("tiny")).toBeLessThanOrEqual(maxTokens); // it would have fit whole

    const result = pack([small, best], { maxTokens, maxFrames: 5 });
    expect(result.frames[0]).toMatchObject({ candidate: best, content: twoLines, keptLines: 2, tokenCost: maxTokens });
    expect(result.frames).toHaveLength(1);
    expect(result).toMatchObject({ totalTokens: maxTokens, dropped: 1, truncated: true });
  });

  it("after a cut, a smaller lower-scored candidate whose byte bound fits still fills what is left", () => {
    const best: PackCandidate = { id: "best", kind: "doc", content: long, score: 0.9 };
    const small: PackCandidate = { id: "small", kind: "doc", content: "ok", score: 0.1 };
    // After a cut only candidates whose upper bound (UTF-8 bytes) fits are considered.
    const maxTokens = reference(twoLines) + new TextEncoder().encode("ok").length;
    expect(reference(long)).toBeGreaterThan(maxTokens);

    const result = pack([best, small], { maxTokens, maxFrames: 5 });
    expect(result.frames.map((f) => [f.candidate.id, f.content])).toEqual([
      ["best", twoLines],
      ["small", "ok"],
    ]);
    expect(result).toMatchObject({ totalTokens: reference(twoLines) + reference("ok"), dropped: 0, truncated: true });
  });

  it("drops a single-line candidate that cannot fit, and the next one ships", () => {
    const big: PackCandidate = { id: "big", kind: "snippet", content: "word ".repeat(50).trim(), score: 0.9 };
    const next: PackCandidate = { id: "next", kind: "snippet", content: "a short line", score: 0.8 };
    const maxTokens = 20;
    expect(reference(big.content)).toBeGreaterThan(maxTokens);

    const result = pack([big, next], { maxTokens, maxFrames: 5 });
    expect(result.frames.map((f) => f.candidate)).toEqual([next]);
    expect(result.frames[0]?.tokenCost).toBe(reference("a short line"));
    expect(result).toMatchObject({ dropped: 1, truncated: true });
  });

  it("dedupe keeps the higher score, in either order, and does not count the loser as dropped", () => {
    const low: PackCandidate = { id: "x", kind: "fact", content: "low", score: 0.3 };
    const high: PackCandidate = { id: "x", kind: "fact", content: "high", score: 0.7 };
    for (const candidates of [
      [low, high],
      [high, low],
    ]) {
      const result = pack(candidates, { maxTokens: 100, maxFrames: 5 });
      expect(result.frames.map((f) => f.candidate)).toEqual([high]);
      expect(result).toMatchObject({ dropped: 0, truncated: false });
    }
  });

  it("dedupe keeps the higher score even when the loser is the only one that would fit", () => {
    const fits: PackCandidate = { id: "x", kind: "fact", content: "ok", score: 0.2 };
    const better: PackCandidate = { id: "x", kind: "fact", content: "word ".repeat(40).trim(), score: 0.8 };
    const result = pack([fits, better], { maxTokens: 5, maxFrames: 5 });
    expect(result.frames).toEqual([]);
    expect(result).toMatchObject({ dropped: 1, truncated: true });
  });

  it("orders equal scores by id", () => {
    const make = (id: string): PackCandidate => ({ id, kind: "doc", content: id, score: 0.5 });
    const result = pack([make("b"), make("c"), make("a")], { maxTokens: 100, maxFrames: 5 });
    expect(result.frames.map((f) => f.candidate.id)).toEqual(["a", "b", "c"]);
  });

  it("drops unrequested kinds without counting them as dropped", () => {
    const doc: PackCandidate = { id: "d", kind: "doc", content: "a doc", score: 1 };
    const fact: PackCandidate = { id: "f", kind: "fact", content: "a fact", score: 0.1 };
    const result = pack([doc, fact], { maxTokens: 100, maxFrames: 5, kinds: ["fact"] });
    expect(result.frames.map((f) => f.candidate)).toEqual([fact]);
    expect(result).toMatchObject({ dropped: 0, truncated: false });
    expect(pack([doc, fact], { maxTokens: 100, maxFrames: 5, kinds: [] }).frames).toHaveLength(2);
  });

  describe.each([
    ["maxFrames 0", { maxTokens: 1000, maxFrames: 0 }],
    ["maxTokens 0", { maxTokens: 0, maxFrames: 10 }],
  ])("%s", (_label, limit) => {
    const doc: PackCandidate = { id: "d", kind: "doc", content: "some content", score: 0.5 };

    it("ships nothing and reports truncated when there were eligible candidates", () => {
      expect(pack([doc, { ...doc, id: "e" }], limit)).toEqual({
        frames: [],
        totalTokens: 0,
        truncated: true,
        dropped: 2,
      });
    });

    it("reports not truncated when no candidate was eligible", () => {
      expect(pack([], limit)).toEqual({ frames: [], totalTokens: 0, truncated: false, dropped: 0 });
      expect(pack([doc], { ...limit, kinds: ["fact"] })).toEqual({
        frames: [],
        totalTokens: 0,
        truncated: false,
        dropped: 0,
      });
    });
  });

  it("ships an empty-content candidate even when the budget is exactly used up", () => {
    const full: PackCandidate = { id: "a", kind: "doc", content: "exactly this", score: 0.9 };
    const empty: PackCandidate = { id: "b", kind: "fact", content: "", score: 0.1 };
    const result = pack([full, empty], { maxTokens: reference("exactly this"), maxFrames: 5 });
    expect(result.frames.map((f) => [f.candidate.id, f.tokenCost])).toEqual([
      ["a", reference("exactly this")],
      ["b", 0],
    ]);
    expect(result).toMatchObject({ dropped: 0, truncated: false });
    expect(pack([empty], { maxTokens: 0, maxFrames: 5 })).toMatchObject({ dropped: 0, truncated: false });
  });
});

describe("packing is cheap in exact counts: the work grows with the budget, not the pool", () => {
  /** A counter that counts its own exact counts. */
  function countingCounter(): TokenCounter & { calls: number } {
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

  /** A small deterministic PRNG (mulberry32), so the pool is the same on every run. */
  function random(seed: number): () => number {
    let state = seed;
    return () => {
      state = (state + 0x6d2b79f5) | 0;
      let t = Math.imul(state ^ (state >>> 15), 1 | state);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }

  const WORDS = ["retry", "policy", "config", "const", "return", "=>", "{", "}", "日本", "é", "👍", "x1", "the"];

  function candidates(count: number, seed: number): PackCandidate[] {
    const next = random(seed);
    return Array.from({ length: count }, (_, i) => {
      let text = "";
      while (text.length < 300) text += `${WORDS[Math.floor(next() * WORDS.length)]}${next() < 0.15 ? "\n" : " "}`;
      return {
        id: `c${i}`,
        kind: FRAME_KINDS[i % FRAME_KINDS.length]!,
        content: text,
        score: Math.round(next() * 100) / 100,
      };
    });
  }

  it("packs 20 000 candidates of ~300 bytes into 2000 tokens with under 200 exact counts", () => {
    const pool = candidates(20_000, 42);
    const counting = countingCounter();
    const result = pack(pool, { maxTokens: 2000, maxFrames: 1000 }, counting);
    expect(counting.calls).toBeGreaterThan(0);
    expect(counting.calls).toBeLessThan(200);
    expect(result.frames.length).toBeGreaterThan(0);
    expect(result.totalTokens).toBeLessThanOrEqual(2000);
    expect(result.frames.length + result.dropped).toBe(pool.length);
    for (const frame of result.frames) expect(frame.tokenCost).toBe(fresh.count(frame.content));
  });

  it("stops probing candidates that cannot fit after maxProbes failures, yet still ships a small one", () => {
    const huge = Array.from(
      { length: 1000 },
      (_, i): PackCandidate => ({
        id: `h${i}`,
        kind: "doc",
        content: `${"lorem ipsum ".repeat(60)}${i}`, // one line, far over the budget
        score: 0.9,
      }),
    );
    const small: PackCandidate = { id: "small", kind: "doc", content: "fits", score: 0.1 };
    const counting = countingCounter();
    const result = pack([...huge, small], { maxTokens: 50, maxFrames: 10 }, counting);
    expect(result.frames.map((f) => f.candidate)).toEqual([small]);
    expect(result).toMatchObject({ dropped: 1000, truncated: true });
    expect(counting.calls).toBeLessThanOrEqual(32 + 1);
  });
});

describe("cutToFit", () => {
  const lineText = fc
    .array(fc.tuple(fc.string({ unit: contentUnit, maxLength: 12 }), fc.constantFrom("\n", "\r\n")), {
      minLength: 2,
      maxLength: 12,
    })
    .map((lines) => lines.map(([line, end]) => line + end).join(""));

  it("returns an exact-cost proper prefix of whole lines within the budget that cannot grow by one line", () => {
    fc.assert(
      fc.property(lineText, fc.integer({ min: 0, max: 80 }), (text, budget) => {
        fc.pre(reference(text) > budget); // it is called for content that does not fit whole
        const prefixes = text
          .split("\n")
          .slice(0, -1)
          .map((_, i, all) => `${all.slice(0, i + 1).join("\n")}\n`);
        const proper = prefixes.filter((prefix) => prefix.length < text.length);
        const piece = cutToFit(text, budget, counter);
        if (piece === undefined) {
          // Not even the first line fits.
          expect(reference(proper[0]!)).toBeGreaterThan(budget);
          return;
        }
        expect(proper).toContain(piece.content);
        expect(piece.tokenCost).toBe(reference(piece.content));
        expect(piece.tokenCost).toBeLessThanOrEqual(budget);
        expect(piece.keptLines).toBe(newlineCount(piece.content));
        const longer = proper[piece.keptLines];
        if (longer !== undefined) expect(reference(longer)).toBeGreaterThan(budget);
      }),
      { numRuns: 300 },
    );
  });

  it("finds the longest fitting prefix when costs grow with every line", () => {
    const text = Array.from({ length: 9 }, (_, i) => `line number ${i} of the text\n`).join("");
    const lines = text.split("\n").slice(0, -1);
    const prefixCosts = lines.map((_, i) => reference(`${lines.slice(0, i + 1).join("\n")}\n`));
    for (let budget = 0; budget < prefixCosts[8]!; budget++) {
      const expected = prefixCosts.slice(0, 8).filter((cost) => cost <= budget).length;
      expect(cutToFit(text, budget, counter)?.keptLines ?? 0).toBe(expected);
    }
  });
});
