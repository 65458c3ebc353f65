import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  aboutTests,
  declaredName,
  definitionQuestion,
  filePrior,
  isDefinition,
  MATCH_QUALITY,
  MATCH_WEIGHTS,
  namesKind,
  occurrenceQuality,
  RANK_WEIGHTS,
  relevance,
  repeatFactor,
  type SnippetFeatures,
} from "./rank.js";
import { queryTerms } from "./terms.js";

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
    pathMatch: unitNumber,
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
          pathMatch: anything,
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
      "pathMatch",
    ];
    fc.assert(
      fc.property(features, fc.constantFrom(...keys), unitNumber, (base, key, extra) => {
        const grown = { ...base, [key]: Math.min(1, base[key] + extra) };
        expect(relevance(grown)).toBeGreaterThanOrEqual(relevance(base));
      }),
    );
  });

  it("lets more of the query beat better placement: full coverage with nothing else beats 0.4 coverage with everything but the path's match", () => {
    // The path's match is part of the match now (0.3 of it): a file the goal names may win on its name alone.
    const nothing = { quality: 0, density: 0, path: 0, proximity: 0, mention: 0, definition: 0 };
    const everything = { quality: 1, density: 1, path: 1, proximity: 1, mention: 1, definition: 1 };
    expect(relevance({ coverage: 1, ...nothing })).toBeGreaterThan(relevance({ coverage: 0.4, ...everything }));
    expect(relevance({ coverage: 1, pathMatch: 1, ...everything })).toBe(1);
    expect(relevance({ coverage: 0, fileCoverage: 0, pathMatch: 0, ...everything })).toBe(0);
  });

  it("ranks a file the goal names by its path above one that only shares common words", () => {
    // Half the query's words in the text, none in the path, against a quarter and the name.
    const named = relevance({
      coverage: 0.25,
      quality: 1,
      density: 0.2,
      path: 0.5,
      pathMatch: 1,
      proximity: 0,
      mention: 0,
    });
    const unnamed = relevance({
      coverage: 0.5,
      quality: 1,
      density: 0.2,
      path: 0,
      pathMatch: 0,
      proximity: 0,
      mention: 0,
    });
    expect(named).toBeGreaterThan(unnamed);
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

  it("counts translation catalogs as data, below the code whose messages they repeat", () => {
    for (const path of [
      "sphinx/locale/fr/LC_MESSAGES/sphinx.po",
      "locale/messages.pot",
      "src/locale/messages.de.xlf",
      "App/fr.lproj/Localizable.strings",
      "Properties/Resources.resx",
      "lib/l10n/app_en.arb",
    ])
      expect(filePrior(path, false)).toBe(filePrior("package.json", false));
    // Only as an extension: a module named after one is code.
    expect(filePrior("src/po.ts", false)).toBe(1);
    expect(filePrior("lib/strings.py", false)).toBe(1);
  });

  it("keeps tests at full weight when the goal is about tests", () => {
    expect(aboutTests([{ text: "tests" }, { text: "flaky" }])).toBe(true);
    expect(aboutTests([{ text: "router" }])).toBe(false);
    expect(filePrior("src/router.test.ts", true)).toBe(1);
  });

  it("keeps an example, doc or benchmark at full weight when the goal names its kind of directory", () => {
    // "docs example: build the index at setup" (stemmed terms as searched) is about examples/docs-provider.ts.
    const terms = [{ text: "docs" }, { text: "example" }, { text: "index" }];
    expect(namesKind("examples/docs-provider.ts", terms)).toBe(true);
    expect(filePrior("examples/docs-provider.ts", false, terms)).toBe(1);
    expect(filePrior("bench/stdio.bench.ts", false, [{ text: "bench" }])).toBe(1);
    // Only the directory the file is in counts, not a word of its name, nor a term too short to mean it.
    expect(filePrior("examples/hello.ts", false, [{ text: "hello" }])).toBeLessThan(1);
    expect(filePrior("examples/hello.ts", false, [{ text: "ex" }])).toBeLessThan(1);
    expect(filePrior("src/router.test.ts", false, [{ text: "router" }])).toBeLessThan(1);
    // Prose stays prose: docs/ named lifts the test-like penalty, not the prose one.
    expect(filePrior("docs/guide.md", false, [{ text: "docs" }])).toBe(filePrior("README.md", false));
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

describe("declaredName", () => {
  it("names what a definition line declares, in the common languages", () => {
    expect(declaredName("export function skippedChecks(report: ConformanceReport): string[] {")).toBe("skippedChecks");
    expect(declaredName("export default async function main() {")).toBe("main");
    expect(declaredName("export const parseConfig = (text: string) => {")).toBe("parseConfig");
    expect(declaredName("  private static readonly limit = 3;")).toBeUndefined(); // not a definition line
    expect(declaredName("class RootReader {")).toBe("RootReader");
    expect(declaredName("def parse_config(text):")).toBe("parse_config");
    expect(declaredName("func (c *Conf) Parse(text string) error {")).toBe("Parse");
    expect(declaredName("pub(crate) fn parse_config(text: &str) -> Config {")).toBe("parse_config");
    expect(declaredName("  resolve(path: string): string {")).toBe("resolve");
    expect(declaredName('const report = await conformanceReport({ goals: ["skippedChecks"] });')).toBe("report");
    expect(declaredName("return skippedChecks(report);")).toBeUndefined();
  });
});

describe("definitionQuestion", () => {
  it("is a goal that asks where an identifier it names is defined or declared", () => {
    for (const goal of [
      "where is skippedChecks defined?",
      "the definition of parse_config",
      "where is RootReader declared",
      "find the declaration of maxTokens",
    ]) {
      expect(definitionQuestion(queryTerms(goal)), goal).toBeDefined();
    }
    const question = definitionQuestion(queryTerms("where is skippedChecks defined?"));
    expect(question?.declares("export function skippedChecks(report) {")).toBe(true);
    expect(question?.declares("const report = skippedChecks(all);")).toBe(false);
    expect(question?.declares("export function skippedCheck(report) {")).toBe(false);
    // The asking word, and only it, is marked.
    const terms = queryTerms("where is skippedChecks defined?");
    expect(terms.filter((_, i) => question?.asks[i]).map((term) => term.text)).toEqual(["defin"]);
  });

  it("is no other goal: no identifier, no asking word, or a verb that says what something does", () => {
    for (const goal of [
      "where is the budget defined?",
      "skippedChecks",
      "how does runConformance report skipped checks",
      "a plugin declares itself in its package.json and its bin runs on runProviderCommand",
      "defines parseConfig",
    ]) {
      expect(definitionQuestion(queryTerms(goal)), goal).toBeUndefined();
    }
  });
});
