import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  aboutTests,
  filePrior,
  isDefinition,
  MATCH_QUALITY,
  MATCH_WEIGHTS,
  occurrenceQuality,
  RANK_WEIGHTS,
  relevance,
  repeatFactor,
  type SnippetFeatures,
} from "./rank.js";

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
    fileCoverage: unitNumber,
    definition: unitNumber,
    prior: unitNumber,
  });

  it("has weights that sum to 1", () => {
    expect(Object.values(RANK_WEIGHTS).reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
    expect(Object.values(MATCH_WEIGHTS).reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
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
          fileCoverage: anything,
          definition: anything,
          prior: anything,
          repeat: anything,
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
    const keys: Exclude<keyof SnippetFeatures, "repeat">[] = [
      "coverage",
      "quality",
      "density",
      "path",
      "proximity",
      "mention",
      "fileCoverage",
      "definition",
      "prior",
    ];
    fc.assert(
      fc.property(features, fc.constantFrom(...keys), unitNumber, (base, key, extra) => {
        const grown = { ...base, [key]: Math.min(1, base[key] + extra) };
        expect(relevance(grown)).toBeGreaterThanOrEqual(relevance(base));
      }),
    );
  });

  it("lets more of the query beat better placement: full coverage with nothing else beats 0.4 coverage with everything", () => {
    // The old formula claimed this against half coverage; path matches weigh more now (0.15), so at 0.5 it is a tie.
    const nothing = { quality: 0, density: 0, path: 0, proximity: 0, mention: 0, definition: 0 };
    const everything = { quality: 1, density: 1, path: 1, proximity: 1, mention: 1, definition: 1 };
    expect(relevance({ coverage: 1, ...nothing })).toBeGreaterThan(relevance({ coverage: 0.4, ...everything }));
    expect(relevance({ coverage: 1, ...everything })).toBe(1);
    expect(relevance({ coverage: 0, fileCoverage: 0, ...everything })).toBe(0);
  });

  it("ranks a file's later snippets lower: repeat 0 is 1, then strictly less", () => {
    const base = { coverage: 1, quality: 1, density: 1, path: 1, proximity: 1, mention: 1, definition: 1 };
    expect(repeatFactor(0)).toBe(1);
    for (let k = 1; k < 5; k++) expect(repeatFactor(k)).toBeLessThan(repeatFactor(k - 1));
    expect(relevance({ ...base, repeat: 1 })).toBeLessThan(relevance(base));
  });
});

describe("filePrior", () => {
  it("puts implementation above tests, fixtures, benchmarks, examples, docs and data", () => {
    for (const path of ["src/router.ts", "sphinx/builders/html.py", "cmd/main.go", "lib/test-utils-impl.js"])
      expect(filePrior(path, false)).toBe(1);
    for (const path of [
      "src/router.test.ts",
      "tests/test_build.py",
      "test/e2e/run.ts",
      "benchmarks/fetch/bench.mts",
      "src/__tests__/a.ts",
      "pkg/server_test.go",
      "examples/hello.ts",
      "fixtures/a.ts",
      "docs/guide.md",
    ])
      expect(filePrior(path, false)).toBeLessThan(1);
    expect(filePrior("package.json", false)).toBeLessThan(1);
    expect(filePrior("CHANGELOG.md", false)).toBeLessThan(1);
  });

  it("keeps tests at full weight when the goal is about tests", () => {
    expect(aboutTests([{ text: "tests" }, { text: "flaky" }])).toBe(true);
    expect(aboutTests([{ text: "router" }])).toBe(false);
    expect(filePrior("src/router.test.ts", true)).toBe(1);
  });
});

describe("isDefinition", () => {
  it("knows definitions in the common languages from uses", () => {
    for (const line of [
      "export function parseConfig(text: string) {",
      "export default class Router {",
      "  async def build(self):",
      "def setup(app):",
      "class HTMLBuilder(Builder):",
      "func (s *Server) Serve() error {",
      "export const compose = (middleware) => {",
      "type Options = {",
      "  private handleError(err: Error) {",
      "pub fn parse(input: &str) -> Result<()> {",
      "  getPath(request) {",
    ])
      expect(isDefinition(line), line).toBe(true);
    for (const line of [
      "  return parseConfig(text)",
      "app.get('/', handler)",
      "// the Router class",
      "  x = y + 1",
      "  if (ready) {",
      "} else if (x) {",
    ])
      expect(isDefinition(line), line).toBe(false);
  });
});
