import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bitCount, charMask, compactForm, initialsMask, splitWords, stem } from "./words.js";

/** The Unicode regex the ASCII fast path of splitWords must agree with. */
const WORD = /\p{Lu}+(?=\p{Lu}\p{Ll})|\p{Lu}?\p{Ll}+\p{N}*|\p{Lu}+\p{N}*|\p{N}+|\p{L}+/gu;
const byRegex = (text: string) => (text.match(WORD) ?? []).map((word) => word.toLowerCase());

describe("splitWords", () => {
  it("splits camelCase, PascalCase, snake_case, acronyms and digits", () => {
    expect(splitWords("parseConfig")).toEqual(["parse", "config"]);
    expect(splitWords("HTTPServer")).toEqual(["http", "server"]);
    expect(splitWords("MAX_RETRIES")).toEqual(["max", "retries"]);
    expect(splitWords("utf8Decode")).toEqual(["utf8", "decode"]);
    expect(splitWords("getSF")).toEqual(["get", "sf"]);
    expect(splitWords("__init__")).toEqual(["init"]);
    expect(splitWords("$emit")).toEqual(["emit"]);
    expect(splitWords("ÜberKlasse")).toEqual(["über", "klasse"]);
  });

  it("agrees with the Unicode regex on every ASCII identifier (the fast path is only faster)", () => {
    const identifier = fc.stringMatching(/^[A-Za-z0-9_$]{0,24}$/);
    fc.assert(
      fc.property(identifier, (text) => {
        expect(splitWords(text)).toEqual(byRegex(text));
      }),
      { numRuns: 2000 },
    );
  });
});

describe("initialsMask", () => {
  it("has exactly the first letters of the words splitWords finds (humps are only skipped when they cannot match)", () => {
    const identifier = fc.oneof(fc.stringMatching(/^[A-Za-z0-9_$]{0,24}$/), fc.string({ maxLength: 16 }));
    fc.assert(
      fc.property(identifier, (text) => {
        let expected = 0;
        for (const word of splitWords(text)) expected |= charMask(word.charAt(0));
        expect(initialsMask(text)).toBe(expected);
      }),
      { numRuns: 2000 },
    );
  });
});

describe("compactForm, charMask, stem", () => {
  it("drops separators and case", () => {
    expect(compactForm("MAX_RETRIES")).toBe("maxretries");
    expect(compactForm("pack.frames")).toBe("packframes");
  });

  it("a name has every mask bit of each of its substrings (the scan's quick reject never rejects a match)", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 30 }), fc.nat(), fc.nat(), (text, a, b) => {
        const lower = text.toLowerCase();
        const start = a % (lower.length + 1);
        const part = lower.slice(start, start + (b % (lower.length - start + 1)));
        expect(charMask(part) & ~charMask(lower)).toBe(0);
      }),
      { numRuns: 1000 },
    );
  });

  it("counts bits", () => {
    expect([bitCount(0), bitCount(1), bitCount(0b1011), bitCount(-1)]).toEqual([0, 1, 3, 32]);
  });

  it("stems to a prefix of the word a name would hold", () => {
    expect(stem("counted")).toBe("count");
    expect(stem("retries")).toBe("retry");
    expect("frame".startsWith(stem("frames"))).toBe(true);
    expect(stem("pack")).toBe("pack");
  });
});
