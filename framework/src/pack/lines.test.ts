import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { countLines, lineEnds, sliceLines } from "./lines.js";

/** Text with many line terminators: `\n`, `\r\n`, lone `\r` (not a terminator), unicode and emoji. */
const multiLineText = fc.string({
  unit: fc.oneof(
    fc.constantFrom("\n", "\r\n", "\r", "\n\n", " ", "a", "é", "日本", "👨‍👩‍👧", "😀", "\uFEFF", "\u2028"),
    fc.string({ unit: "grapheme", minLength: 1, maxLength: 1 }),
  ),
  maxLength: 40,
});

/** The lines of `text` by the documented convention, computed by splitting instead of scanning. */
function splitLines(text: string): string[] {
  if (text === "") return [];
  const parts = text.split("\n").map((part, index, all) => (index < all.length - 1 ? `${part}\n` : part));
  if (parts[parts.length - 1] === "") parts.pop();
  return parts;
}

describe("lineEnds", () => {
  it.each([
    ["", []],
    ["a", [1]],
    ["a\n", [2]],
    ["a\nb", [2, 3]],
    ["a\nb\n", [2, 4]],
    ["\n", [1]],
    ["\n\n", [1, 2]],
    ["a\r\nb\r\n", [3, 6]],
    ["a\r\nb", [3, 4]],
    ["a\rb", [3]],
    ["😀\n日", [3, 4]],
  ])("%j → %j", (text, expected) => {
    expect(lineEnds(text)).toEqual(expected);
  });

  it("ends each line just past its \\n, and the last at the end of the text", () => {
    fc.assert(
      fc.property(multiLineText, (text) => {
        const ends = lineEnds(text);
        let offset = 0;
        const expected = splitLines(text).map((line) => (offset += line.length));
        expect(ends).toEqual(expected);
      }),
      { numRuns: 500 },
    );
  });
});

describe("countLines", () => {
  it.each([
    ["", 0],
    ["a", 1],
    ["a\nb", 2],
    ["a\nb\n", 2],
    ["a\r\nb\r\n", 2],
    ["a\n\nb", 3],
    ["\n", 1],
    ["a\rb\rc", 1],
  ])("%j has %i lines", (text, expected) => {
    expect(countLines(text)).toBe(expected);
  });

  it("equals the number of lines split out of the text", () => {
    fc.assert(
      fc.property(multiLineText, (text) => {
        expect(countLines(text)).toBe(splitLines(text).length);
      }),
      { numRuns: 500 },
    );
  });
});

describe("sliceLines", () => {
  const text = "one\r\ntwo\nthree\r\nfour";

  it.each([
    [1, 1, "one\r\n"],
    [2, 2, "two\n"],
    [3, 3, "three\r\n"],
    [4, 4, "four"],
    [1, 4, text],
    [2, 3, "two\nthree\r\n"],
    [3, 99, "three\r\nfour"],
    [0, 1, ""],
    [-1, 2, ""],
    [5, 5, ""],
    [3, 2, ""],
  ])("lines %i..%i keep their terminators: %j", (first, last, expected) => {
    expect(sliceLines(text, first, last)).toBe(expected);
  });

  it("slices nothing out of empty text", () => {
    expect(sliceLines("", 1, 1)).toBe("");
    expect(sliceLines("", 0, 0)).toBe("");
  });

  it("keeps a trailing newline on the last line, and none when the text has none", () => {
    expect(sliceLines("a\nb\n", 2, 2)).toBe("b\n");
    expect(sliceLines("a\nb", 2, 2)).toBe("b");
  });

  it("concatenating every single line gives the text back", () => {
    fc.assert(
      fc.property(multiLineText, (text) => {
        const lines = Array.from({ length: countLines(text) }, (_, i) => sliceLines(text, i + 1, i + 1));
        expect(lines.join("")).toBe(text);
        expect(lines).toEqual(splitLines(text));
      }),
      { numRuns: 500 },
    );
  });

  it("a range is the concatenation of its lines, clamped to the text", () => {
    fc.assert(
      fc.property(multiLineText, fc.integer({ min: -2, max: 12 }), fc.integer({ min: -2, max: 12 }), (t, a, b) => {
        const lines = splitLines(t);
        const expected = a < 1 || b < a ? "" : lines.slice(a - 1, b).join("");
        expect(sliceLines(t, a, b)).toBe(expected);
      }),
      { numRuns: 500 },
    );
  });

  it("never splits a surrogate pair", () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: "grapheme", maxLength: 6 }), { maxLength: 6 }), (parts) => {
        const text = parts.join("\n");
        for (let i = 1; i <= countLines(text); i++) {
          // With the u flag a well-formed pair is one code point, so only a lone surrogate matches.
          expect(sliceLines(text, i, i)).not.toMatch(/[\uD800-\uDFFF]/u);
        }
      }),
      { numRuns: 300 },
    );
  });
});
