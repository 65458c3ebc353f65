/**
 * Property tests every registered tokenizer must pass, shared by the core's tests and
 * each open family's test file (one file per family, so each loads one vocabulary and
 * vitest runs them side by side).
 *
 * - exactness: the counter equals a reference count on thousands of generated strings
 *   (arbitrary Unicode, code, CJK, emoji, whitespace runs, special-token text);
 * - the upper bound: never below the count, subadditive, and `surelyFits` agrees with it;
 * - the packer's budget: Σ token_cost ≤ max_tokens, each cost exact in this tokenizer.
 *
 * Test-only (framework/tsconfig.json keeps test-support out of the build).
 */
import fc from "fast-check";
import { expect } from "vitest";
import { packFrames } from "../pack/pack.js";
import type { TokenCounter } from "../tokens/counter.js";
import { FRAME_KINDS } from "../wire/schemas.js";

/** Units that exercise pre-tokenizers and normalisers: whitespace kinds, contractions, digits, scripts, emoji, code. */
const TRICKY = [
  " ",
  "  ",
  "    ",
  "\t",
  "\n",
  "\n\n",
  "\r\n",
  "\r",
  "\u000b",
  "\u00a0",
  "\u3000",
  "\u2028",
  "\uFEFF",
  "\u0085",
  "▁",
  "'s",
  "'LL",
  "1",
  "123",
  "12345",
  "The",
  "é",
  "e\u0301",
  "\u0958",
  "\u1e69",
  "a\u0323\u0301",
  "\u{1d15e}",
  "\u{1d160}",
  "\uac00",
  "\u1100\u1161",
  "日本語",
  "中文",
  "한국어",
  "ひらがな",
  "👍🏽",
  "👨‍👩‍👧",
  "🇫🇷",
  "{",
  "}",
  "=>",
  "function",
  "const x = 1;",
  "if (a && b) {",
  "<div>",
  "</td>",
  "\u200d",
  "\u0000",
];

/** Any code point outside the surrogate range, drawn uniformly over all seventeen planes. */
const anyCodePoint = fc
  .integer({ min: 0, max: 0x10ffff - 0x800 })
  .map((n) => String.fromCodePoint(n < 0xd800 ? n : n + 0x800));

/** A unit of generated text: a tricky unit, any grapheme, ASCII, or one of `extra` (a family's special-token text). */
function unit(extra: readonly string[]): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...TRICKY) },
    { weight: 3, arbitrary: fc.string({ unit: "grapheme", minLength: 1, maxLength: 1 }) },
    { weight: 3, arbitrary: fc.string({ unit: "grapheme-ascii", minLength: 1, maxLength: 1 }) },
    { weight: 1, arbitrary: anyCodePoint },
    ...(extra.length > 0 ? [{ weight: 1, arbitrary: fc.constantFrom(...extra) }] : []),
  );
}

/** Code-like lines: identifiers, operators, indentation, comments. */
const codeLine = fc
  .tuple(
    fc.constantFrom("", "  ", "    ", "\t", "        "),
    fc.array(
      fc.oneof(
        fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,12}$/),
        fc.constantFrom("(", ")", "{", "}", ";", " = ", " => ", ".", ", ", "// ", "/* ", " */", '"', "'", "`"),
        fc.integer({ min: 0, max: 99999 }).map(String),
      ),
      { maxLength: 12 },
    ),
  )
  .map(([indent, parts]) => indent + parts.join(""));

/** Strings a tokenizer must count exactly: `extra` mixes in text the family treats specially. */
export function textArbitrary(extra: readonly string[] = []): fc.Arbitrary<string> {
  return fc.oneof(
    fc.string({ unit: "grapheme", maxLength: 40 }),
    fc.string({ unit: "binary", maxLength: 40 }),
    fc.string({ unit: unit(extra), maxLength: 40 }),
    fc.string({ unit: anyCodePoint, maxLength: 20 }),
    fc.array(codeLine, { maxLength: 8 }).map((lines) => lines.join("\n")),
    fc
      .array(fc.tuple(fc.string({ unit: unit(extra), maxLength: 12 }), fc.constantFrom(" ", "  ", "\n", "\t", "   \n")))
      .map((parts) => parts.map(([text, gap]) => text + gap).join("")),
  );
}

/** `counter.count` equals `reference` on `runs` generated strings. */
export function checkExact(
  counter: TokenCounter,
  reference: (text: string) => number,
  runs: number,
  extra: readonly string[] = [],
): void {
  fc.assert(
    fc.property(textArbitrary(extra), (text) => {
      expect(counter.count(text)).toBe(reference(text));
    }),
    { numRuns: runs },
  );
}

/** The upper bound's three promises, on `runs` generated strings (and pairs). */
export function checkUpperBound(counter: TokenCounter, runs: number, extra: readonly string[] = []): void {
  const text = textArbitrary(extra);
  fc.assert(
    fc.property(text, (value) => {
      expect(counter.upperBound(value)).toBeGreaterThanOrEqual(counter.count(value));
    }),
    { numRuns: runs },
  );
  fc.assert(
    fc.property(text, text, (a, b) => {
      expect(counter.upperBound(a + b)).toBeLessThanOrEqual(counter.upperBound(a) + counter.upperBound(b));
    }),
    { numRuns: runs },
  );
  fc.assert(
    fc.property(text, fc.nat(400), (value, budget) => {
      const sure = counter.surelyFits(value, budget);
      if (sure) expect(counter.count(value)).toBeLessThanOrEqual(budget);
      expect(sure).toBe(counter.upperBound(value) <= budget);
    }),
    { numRuns: runs },
  );
}

/**
 * The packer's budget in this tokenizer: whatever the candidates and limits, Σ token_cost
 * ≤ max_tokens, and each frame's cost is `exact` of its shipped content (an uncached
 * count: the packer's own counter may answer from its memo).
 */
export function checkPackerBudget(
  counter: TokenCounter,
  exact: (text: string) => number,
  runs: number,
  extra: readonly string[] = [],
): void {
  const content = fc
    .array(fc.tuple(fc.string({ unit: unit(extra), maxLength: 24 }), fc.constantFrom("\n", "\r\n")), {
      maxLength: 10,
    })
    .map((lines) => lines.map(([line, end]) => line + end).join(""));
  const candidate = fc.record({
    id: fc.constantFrom("a", "b", "c", "d", "e", "f", "g", "h"),
    kind: fc.constantFrom(...FRAME_KINDS),
    content,
    score: fc.constantFrom(0, 0.25, 0.5, 0.75, 1),
  });
  fc.assert(
    fc.property(
      fc.array(candidate, { maxLength: 20 }),
      fc.oneof(fc.integer({ min: 0, max: 60 }), fc.integer({ min: 0, max: 1500 })),
      fc.integer({ min: 0, max: 20 }),
      (candidates, maxTokens, maxFrames) => {
        const result = packFrames(candidates, { maxTokens, maxFrames, counter });
        let total = 0;
        for (const frame of result.frames) {
          expect(frame.tokenCost).toBe(exact(frame.content));
          total += frame.tokenCost;
        }
        expect(total).toBe(result.totalTokens);
        expect(total).toBeLessThanOrEqual(maxTokens);
        expect(result.frames.length).toBeLessThanOrEqual(maxFrames);
      },
    ),
    { numRuns: runs },
  );
}
