import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalTokenCount, createTokenCounter, TOKENIZERS, type TokenizerName } from "./counter.js";
import { type BpeEncodingName, tiktokenCount } from "./encoders.js";
import { tokenizerSpec } from "./registry.js";

/** Texts that have tripped tokenizers: BOM, NEL, CJK, emoji, code, special-token text, CRLF, whitespace runs. */
const CASES = JSON.parse(readFileSync(new URL("fixtures/tokenizer-cases.json", import.meta.url), "utf8")) as {
  name: string;
  text: string;
}[];

const ENCODINGS: readonly BpeEncodingName[] = ["o200k_base", "cl100k_base"];

/** UTF-8 length computed independently of the module (which uses Buffer.byteLength). */
const utf8Length = (text: string) => new TextEncoder().encode(text).length;

/** Units that exercise the pre-tokenizer: whitespace kinds, contractions, digits, case, scripts, specials. */
const tokenizerUnit = fc.oneof(
  { weight: 4, arbitrary: fc.string({ unit: "grapheme", minLength: 1, maxLength: 1 }) },
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      " ",
      "  ",
      "\t",
      "\n",
      "\r\n",
      "\r",
      "\u000b",
      "\u00a0",
      "\u3000",
      "\u2028",
      "\uFEFF",
      "\u0085",
      "'s",
      "'S",
      "'re",
      "'LL",
      "1",
      "123",
      "a",
      "A",
      "The",
      "é",
      "日本",
      "👍🏽",
      "👨‍👩‍👧",
      "<|endoftext|>",
      "<|fim_prefix|>",
      ".",
      "_",
      "{",
      "\ua7ce",
      "\u{10940}",
      "\u{323b0}",
      "\u0c5c",
    ),
  },
  { weight: 2, arbitrary: fc.string({ unit: "grapheme-ascii", minLength: 1, maxLength: 1 }) },
);

/** Any code point outside the surrogate range, drawn uniformly over all seventeen planes. */
const anyCodePoint = fc
  .integer({ min: 0, max: 0x10ffff - 0x800 })
  .map((n) => String.fromCodePoint(n < 0xd800 ? n : n + 0x800));

const unicodeStrings = fc.oneof(
  fc.string({ unit: "grapheme", maxLength: 40 }),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.string({ unit: tokenizerUnit, maxLength: 40 }),
  fc.string({ unit: anyCodePoint, maxLength: 20 }),
);

describe.each(ENCODINGS)(
  "%s counts exactly what the reference tokenizer (tiktoken encode_ordinary) counts",
  (tokenizer) => {
    const counter = createTokenCounter({ tokenizer });
    const reference = tiktokenCount(tokenizer);

    it("the fixture holds the texts it promises", () => {
      const all = CASES.map((testCase) => testCase.text).join("");
      for (const needle of ["\uFEFF", "\u0085", "\r\n", "<|endoftext|>", "<|fim_prefix|>", "\u200d", "👍🏽", "日本"]) {
        expect(all, JSON.stringify(needle)).toContain(needle);
      }
      expect(all).toMatch(/ {100}/);
    });

    it.each(CASES.map((testCase) => [testCase.name, testCase.text] as const))("%s", (_name, text) => {
      expect(counter.count(text)).toBe(reference(text));
      expect(counter.upperBound(text)).toBeGreaterThanOrEqual(counter.count(text));
    });

    it("counts special-token text as plain text (content is data, never control)", () => {
      const text = "<|endoftext|>";
      // Counted as the one special token, this would be 1.
      expect(counter.count(text)).toBeGreaterThan(1);
      expect(counter.count(text)).toBe(reference(text));
    });

    it("agrees with the reference on arbitrary unicode strings", () => {
      const uncached = createTokenCounter({ tokenizer, cacheSize: 0 });
      fc.assert(
        fc.property(unicodeStrings, (text) => {
          expect(uncached.count(text)).toBe(reference(text));
        }),
        { numRuns: 300 },
      );
    });

    it("agrees with the reference on multi-line, whitespace-heavy text", () => {
      const lines = fc.array(fc.string({ unit: tokenizerUnit, maxLength: 30 }), { maxLength: 20 });
      fc.assert(
        fc.property(lines, fc.constantFrom("\n", "\r\n", "\n\n", " \n"), (parts, separator) => {
          const text = parts.join(separator);
          expect(counter.count(text)).toBe(reference(text));
        }),
        { numRuns: 300 },
      );
    });
  },
);

/** The core's tokenizers; each open family's bound is tested in its own file (family-*.test.ts), with its vocabulary. */
const CORE = TOKENIZERS.filter((name) => tokenizerSpec(name).package === undefined);

describe.each(CORE)("%s upper bound", (tokenizer) => {
  const counter = createTokenCounter({ tokenizer });

  it("is never below the exact count", () => {
    fc.assert(
      fc.property(unicodeStrings, (text) => {
        expect(counter.upperBound(text)).toBeGreaterThanOrEqual(counter.count(text));
      }),
      { numRuns: 300 },
    );
  });

  it("is subadditive: the bound of a concatenation is at most the sum of the bounds", () => {
    fc.assert(
      fc.property(unicodeStrings, unicodeStrings, (a, b) => {
        expect(counter.upperBound(a + b)).toBeLessThanOrEqual(counter.upperBound(a) + counter.upperBound(b));
      }),
      { numRuns: 300 },
    );
  });

  it("surelyFits is only ever true when the exact count fits, and agrees with the bound", () => {
    fc.assert(
      fc.property(unicodeStrings, fc.nat(400), (text, budget) => {
        const sure = counter.surelyFits(text, budget);
        if (sure) expect(counter.count(text)).toBeLessThanOrEqual(budget);
        // It never claims less than the bound itself proves.
        expect(sure).toBe(counter.upperBound(text) <= budget);
      }),
      { numRuns: 500 },
    );
  });

  it("is subadditive across a split surrogate pair", () => {
    const [high, low] = ["\uD83D", "\uDE00"];
    expect(counter.upperBound(high + low)).toBeLessThanOrEqual(counter.upperBound(high) + counter.upperBound(low));
  });
});

describe("canonical tokenizer: ceil(UTF-8 bytes / 4)", () => {
  const canonical = createTokenCounter({ tokenizer: "canonical" });

  it.each([
    ["", 0],
    ["a", 1],
    ["abcd", 1],
    ["abcde", 2],
    ["abcdefgh", 2],
    ["é", 1], // 2 bytes
    ["éé", 1], // 4 bytes
    ["ééé", 2], // 6 bytes
    ["日", 1], // 3 bytes
    ["日本", 2], // 6 bytes
    ["😀", 1], // 4 bytes
    ["😀a", 2], // 5 bytes
    ["👍🏽", 2], // 8 bytes
    ["👨‍👩‍👧‍👦", 7], // 4 × 4 + 3 × 3 = 25 bytes
    ["\r\n", 1],
  ])("%j → %i", (text, expected) => {
    expect(canonical.count(text)).toBe(expected);
    expect(canonicalTokenCount(text)).toBe(expected);
  });

  it("equals ceil(bytes/4) on arbitrary strings, lone surrogates (3 bytes as U+FFFD) included", () => {
    fc.assert(
      fc.property(unicodeStrings, (text) => {
        expect(canonical.count(text)).toBe(Math.ceil(utf8Length(text) / 4));
      }),
      { numRuns: 300 },
    );
  });

  it("reports its tokenizer and preloads nothing", () => {
    expect(canonical.tokenizer).toBe("canonical");
    expect(() => canonical.preload()).not.toThrow();
  });
});

describe("createTokenCounter", () => {
  it("defaults to o200k_base", () => {
    const counter = createTokenCounter();
    expect(counter.tokenizer).toBe("o200k_base");
    const text = "日本語 and English, 👍🏽";
    // o200k and cl100k disagree on this text, so the default is observable.
    expect(tiktokenCount("o200k_base")(text)).not.toBe(tiktokenCount("cl100k_base")(text));
    expect(counter.count(text)).toBe(tiktokenCount("o200k_base")(text));
  });

  it.each(["p50k_base", "gpt2", "", "O200K_BASE"])("throws a RangeError naming unknown tokenizer %j", (name) => {
    expect(() => createTokenCounter({ tokenizer: name as TokenizerName })).toThrow(RangeError);
    expect(() => createTokenCounter({ tokenizer: name as TokenizerName })).toThrow(`'${name}'`);
  });

  it("preload() loads without changing any count", () => {
    const counter = createTokenCounter({ tokenizer: "cl100k_base" });
    counter.preload();
    expect(counter.count("hello world")).toBe(tiktokenCount("cl100k_base")("hello world"));
  });
});

describe.each(ENCODINGS)("%s cache", (tokenizer) => {
  const reference = tiktokenCount(tokenizer);
  const longText = (seed: string) =>
    Array.from({ length: 400 }, (_, i) => `${seed} line ${i}: 日本 👍🏽 <|endoftext|>\r\n`).join("");

  it("returns the same exact count for repeated texts", () => {
    const counter = createTokenCounter({ tokenizer });
    for (const { text } of CASES) {
      const expected = reference(text);
      expect(counter.count(text)).toBe(expected);
      expect(counter.count(text)).toBe(expected);
    }
  });

  it("keys texts over 4096 units by content: near-identical long texts keep their own counts", () => {
    const counter = createTokenCounter({ tokenizer });
    const a = longText("alpha");
    const b = `${a.slice(0, -1)}   x`; // same prefix, different tail
    const c = `${a.slice(0, 2048)}\uFEFF${a.slice(2049)}`; // same length as a, one unit changed
    expect(a.length).toBeGreaterThan(4096);
    expect(c.length).toBe(a.length);
    for (const text of [a, b, c, a, c, b]) expect(counter.count(text)).toBe(reference(text));
  });

  it("never confuses a short text with the digest key of a long one", () => {
    const counter = createTokenCounter({ tokenizer });
    const long = longText("digest");
    const digest = createHash("sha256").update(long).digest("base64");
    expect(counter.count(long)).toBe(reference(long));
    expect(counter.count(digest)).toBe(reference(digest));
    expect(counter.count(long)).toBe(reference(long));
  });

  it("with a cache of one entry, evicts without changing results", () => {
    const counter = createTokenCounter({ tokenizer, cacheSize: 1 });
    const texts = ["alpha beta", "gamma\r\ndelta", "alpha beta", longText("x"), longText("y"), "gamma\r\ndelta"];
    for (let round = 0; round < 3; round++) {
      for (const text of texts) expect(counter.count(text)).toBe(reference(text));
    }
  });

  it("with the cache disabled, counts the same", () => {
    const counter = createTokenCounter({ tokenizer, cacheSize: 0 });
    for (const { text } of CASES) expect(counter.count(text)).toBe(reference(text));
  });

  it("cached counts agree with the reference under any interleaving", () => {
    const counter = createTokenCounter({ tokenizer, cacheSize: 3 });
    const pool = ["a", "b b", "日本語", "\uFEFFx", longText("p"), longText("q"), "<|endoftext|>"];
    fc.assert(
      fc.property(fc.array(fc.nat({ max: pool.length - 1 }), { maxLength: 40 }), (picks) => {
        for (const pick of picks) expect(counter.count(pool[pick]!)).toBe(reference(pool[pick]!));
      }),
      { numRuns: 100 },
    );
  });
});

describe("cacheStats", () => {
  it("counts a first count as a miss and a repeat as a hit; a counter without a cache has none", () => {
    const counter = createTokenCounter();
    expect(counter.cacheStats?.()).toEqual({ hits: 0, misses: 0 });
    counter.count("one");
    counter.count("two");
    counter.count("one");
    expect(counter.cacheStats?.()).toEqual({ hits: 1, misses: 2 });
    expect(createTokenCounter({ cacheSize: 0 }).cacheStats).toBeUndefined();
    expect(createTokenCounter({ tokenizer: "canonical" }).cacheStats).toBeUndefined();
  });

  it("clearCache empties the cache (a repeat misses again, with the same count) and keeps the counts going", () => {
    const counter = createTokenCounter();
    const long = "word ".repeat(2000); // keyed by its digest: the other cache
    const first = [counter.count("one"), counter.count(long)];
    counter.clearCache?.();
    expect([counter.count("one"), counter.count(long)]).toEqual(first);
    expect(counter.cacheStats?.()).toEqual({ hits: 0, misses: 4 });
    counter.count("one");
    expect(counter.cacheStats?.()).toEqual({ hits: 1, misses: 4 });
    expect(createTokenCounter({ cacheSize: 0 }).clearCache).toBeUndefined();
  });
});
