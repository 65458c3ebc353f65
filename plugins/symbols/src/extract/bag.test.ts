import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { splitWords } from "../search/words.js";
import {
  hasHash,
  identHash,
  stemWord,
  termBag,
  termCount,
  textWords,
  typedArrayReplacer,
  typedArrayReviver,
} from "./bag.js";

describe("stemWord", () => {
  it("brings plurals and -ing/-ed forms together, keeps short words", () => {
    const same = [
      ["parse", "parses", "parsed", "parsing"],
      ["file", "files"],
      ["retry", "retries"],
      ["class", "classes"],
      ["match", "matches"],
      ["run", "runs", "running"],
      ["stop", "stopped"],
      ["token", "tokens"],
      ["count", "counted", "counting", "counts"],
      ["cache", "caches", "cached", "caching"],
      ["index", "indexes"],
      ["call", "called", "calls"],
    ];
    for (const group of same) expect(new Set(group.map(stemWord)), group.join(" ")).toHaveLength(1);
    expect(stemWord("status")).toBe("status");
    expect(stemWord("analysis")).toBe("analysis");
    expect(stemWord("pass")).toBe("pass");
    expect(stemWord("add")).toBe("add");
    expect(stemWord("frame")).not.toBe(stemWord("from"));
  });
});

describe("textWords", () => {
  it("splits identifiers into lower-cased, stemmed subwords and skips numbers and one-letter words", () => {
    expect(textWords("parseHTTPRequest2x, MAX_RETRIES = 0x1F; a.b").map((w) => w.word)).toEqual([
      "pars",
      "http",
      "request2",
      "max",
      "retry",
    ]);
  });

  it("finds the words splitWords finds in any ASCII identifier (the same splitting as name matching)", () => {
    const identifier = fc.stringMatching(/^[A-Za-z_$][A-Za-z0-9_$]{0,23}$/);
    fc.assert(
      fc.property(identifier, (text) => {
        const expected = splitWords(text)
          .filter((word) => word.length >= 2)
          .map(stemWord);
        expect(textWords(text).map((w) => w.word)).toEqual(expected);
      }),
      { numRuns: 2000 },
    );
  });
});

describe("termBag", () => {
  it("counts exactly the words textWords reads, and lists every identifier of three characters or more", () => {
    const token = fc.oneof(
      fc.stringMatching(/^[A-Za-z_$][A-Za-z0-9_$]{0,12}$/),
      fc.constantFrom(" ", "\n", ".", "(", ")", "0x2A", "42", "é", "// ", '"', "::"),
    );
    fc.assert(
      fc.property(fc.array(token, { maxLength: 60 }), (tokens) => {
        const text = tokens.join(" ");
        const bag = termBag(text);
        const expected = new Map<number, number>();
        for (const { hash } of textWords(text)) expected.set(hash, (expected.get(hash) ?? 0) + 1);
        expect(bag.terms.length / 2).toBe(expected.size);
        for (const [hash, count] of expected) expect(termCount(bag.terms, hash)).toBe(count);
        expect(bag.length).toBe([...expected.values()].reduce((a, b) => a + b, 0));
        for (let i = 2; i < bag.terms.length; i += 2)
          expect(bag.terms[i] as number).toBeGreaterThan(bag.terms[i - 2] as number);
        for (const identifier of text.match(/(?<![A-Za-z0-9_$])[A-Za-z_$][A-Za-z0-9_$]{2,}/g) ?? [])
          expect(hasHash(bag.idents, identHash(identifier))).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it("does not carry anything over from the file before (a large file grows the shared tables)", () => {
    const big = Array.from({ length: 5000 }, (_, i) => `word${i}x`).join(" ");
    termBag(big);
    const small = termBag("retry the retries");
    expect(small.terms.length).toBe(4); // retry ×2, the ×1
    expect(termCount(small.terms, textWords("retry")[0]?.hash as number)).toBe(2);
    expect(small.idents.length).toBe(3);
  });

  it("counts no term in an empty or symbol-only text", () => {
    expect(termBag("").terms.length).toBe(0);
    expect(termBag("{}();\n  // ... 123").length).toBe(0);
  });
});

describe("typedArrayReplacer / typedArrayReviver", () => {
  it("carry a bag through JSON, as the worker pool sends extractions, unchanged", () => {
    const bag = termBag("export function retryRequest(retries: number) { return retryRequest(retries - 1); }");
    const outcome = { id: 3, outcome: { kind: "extracted", extraction: { status: "ok", symbols: [], bag } } };
    const back = JSON.parse(JSON.stringify([outcome], typedArrayReplacer), typedArrayReviver);
    expect(back).toEqual([outcome]);
    expect(back[0].outcome.extraction.bag.terms).toBeInstanceOf(Uint32Array);
    // Without them, JSON turns the arrays into objects of numbered keys.
    expect(JSON.parse(JSON.stringify(bag)).terms).not.toBeInstanceOf(Uint32Array);
  });
});
