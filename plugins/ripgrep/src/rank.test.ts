import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MATCH_QUALITY, occurrenceQuality, RANK_WEIGHTS, relevance, type SnippetFeatures } from "./rank.js";

const at = (line: string, word: string) => {
  const start = line.indexOf(word);
  return occurrenceQuality(line, start, start + word.length);
};

describe("occurrenceQuality", () => {
  it("ranks whole words over identifier parts over bare substrings", () => {
    expect(at("const budget = 1;", "budget")).toBe(MATCH_QUALITY.wholeWord);
    expect(at("parseConfigFile(x)", "Config")).toBe(MATCH_QUALITY.identifierPart);
    expect(at("parseConfigFile(x)", "parse")).toBe(MATCH_QUALITY.identifierPart);
    expect(at("let max_tokens = 0", "tokens")).toBe(MATCH_QUALITY.identifierPart);
    expect(at("new HTTPServer()", "HTTP")).toBe(MATCH_QUALITY.identifierPart);
    expect(at("new HTTPServer()", "Server")).toBe(MATCH_QUALITY.identifierPart);
    expect(at("reconfigure()", "config")).toBe(MATCH_QUALITY.substring);
    expect(at("budgets", "budget")).toBe(MATCH_QUALITY.substring);
  });

  it("treats letters of any script as word characters", () => {
    expect(at("Das Token-Budget gilt", "Budget")).toBe(MATCH_QUALITY.wholeWord);
    expect(at("Größenbudget", "budget")).toBe(MATCH_QUALITY.substring);
    expect(at("🚀budget🚀", "budget")).toBe(MATCH_QUALITY.wholeWord);
  });
});

describe("relevance", () => {
  const unitNumber = fc.double({ min: 0, max: 1, noNaN: true });
  const features = fc.record({
    coverage: unitNumber,
    quality: unitNumber,
    density: unitNumber,
    path: unitNumber,
    proximity: unitNumber,
    mention: unitNumber,
  });

  it("has weights that sum to 1", () => {
    expect(Object.values(RANK_WEIGHTS).reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
  });

  it("stays in [0, 1] for any input, even out-of-range or NaN features", () => {
    const anything = fc.oneof(fc.double(), fc.constant(Number.NaN), fc.constant(Number.POSITIVE_INFINITY));
    fc.assert(
      fc.property(
        fc.record({
          coverage: anything,
          quality: anything,
          density: anything,
          path: anything,
          proximity: anything,
          mention: anything,
        }),
        (input) => {
          const score = relevance(input);
          expect(score).toBeGreaterThanOrEqual(0);
          expect(score).toBeLessThanOrEqual(1);
        },
      ),
    );
  });

  it("never decreases when any feature grows", () => {
    const keys: (keyof SnippetFeatures)[] = ["coverage", "quality", "density", "path", "proximity", "mention"];
    fc.assert(
      fc.property(features, fc.constantFrom(...keys), unitNumber, (base, key, extra) => {
        const grown = { ...base, [key]: Math.min(1, base[key] + extra) };
        expect(relevance(grown)).toBeGreaterThanOrEqual(relevance(base));
      }),
    );
  });

  it("lets more of the query beat better placement: full coverage with nothing else beats half coverage with everything", () => {
    const nothing = { quality: 0, density: 0, path: 0, proximity: 0, mention: 0 };
    const everything = { quality: 1, density: 1, path: 1, proximity: 1, mention: 1 };
    expect(relevance({ coverage: 1, ...nothing })).toBeGreaterThanOrEqual(relevance({ coverage: 0.5, ...everything }));
    expect(relevance({ coverage: 1, ...everything })).toBe(1);
    expect(relevance({ coverage: 0, ...everything })).toBe(0);
  });
});
