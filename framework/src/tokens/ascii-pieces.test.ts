import { createRequire } from "node:module";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { forEachAsciiPiece } from "./ascii-pieces.js";
import { createTokenCounter } from "./counter.js";
import type { BpeEncodingName } from "./encoders.js";
import { tiktokenCount } from "./encoders.js";

const require = createRequire(import.meta.url);

/** The encoding's own pre-tokenizer regex, as gpt-tokenizer compiles it. */
function regexOf(name: BpeEncodingName): RegExp {
  const module = require(`gpt-tokenizer/encoding/${name}`) as {
    default: { bytePairEncodingCoreProcessor: { tokenSplitRegex: RegExp } };
  };
  return module.default.bytePairEncodingCoreProcessor.tokenSplitRegex;
}

function ours(text: string, name: BpeEncodingName): string[] {
  const pieces: string[] = [];
  forEachAsciiPiece(text, name, (start, end) => pieces.push(text.slice(start, end)));
  return pieces;
}

const asciiChar = fc.integer({ min: 0, max: 127 }).map((code) => String.fromCharCode(code));
/** Characters that exercise every branch: cases, digits, each kind of space, contractions, slashes. */
const TRICKY = ["a", "Z", "s", "l", "v", "e", "R", "7", " ", "\t", "\v", "\n", "\r", "'", "/", ".", "_", "\u0000"];

describe.each(["o200k_base", "cl100k_base"] as const)("%s ASCII pieces", (name) => {
  const regex = regexOf(name);
  const reference = (text: string) => [...text.matchAll(regex)].map((match) => match[0]);

  it("equal the regex's on every string of up to 4 tricky characters", () => {
    const strings = [""];
    for (let length = 1; length <= 4; length++) {
      for (const prefix of strings.filter((s) => s.length === length - 1)) {
        for (const unit of TRICKY) strings.push(prefix + unit);
      }
    }
    let mismatches = 0;
    for (const text of strings) if (ours(text, name).join("\u0001") !== reference(text).join("\u0001")) mismatches++;
    expect(strings.length).toBeGreaterThan(100_000);
    expect(mismatches).toBe(0);
  });

  it("equal the regex's on arbitrary ASCII text", () => {
    const words = fc.constantFrom(
      "const",
      "Foo",
      "HTTPServer",
      "it's",
      "WE'LL",
      " ",
      "  ",
      "\r\n",
      "\n\n",
      "123456",
      "//",
      "=>",
    );
    const text = fc.array(fc.oneof(asciiChar, words), { maxLength: 60 }).map((parts) => parts.join(""));
    fc.assert(
      fc.property(text, (sample) => {
        expect(ours(sample, name)).toEqual(reference(sample));
      }),
      { numRuns: 3000 },
    );
  });

  it("tile the text: every character in exactly one piece, in order", () => {
    fc.assert(
      fc.property(fc.string({ unit: asciiChar, maxLength: 80 }), (sample) => {
        expect(ours(sample, name).join("")).toBe(sample);
      }),
    );
  });

  it("give counts equal to the reference tokenizer's", () => {
    const counter = createTokenCounter({ tokenizer: name, cacheSize: 0 });
    const referenceCount = tiktokenCount(name);
    const code = fc.array(fc.oneof(asciiChar, fc.constantFrom("function ", "return x;\n", "<|endoftext|>", "    ")), {
      maxLength: 80,
    });
    fc.assert(
      fc.property(code, (parts) => {
        const sample = parts.join("");
        expect(counter.count(sample)).toBe(referenceCount(sample));
      }),
      { numRuns: 1000 },
    );
  });
});
