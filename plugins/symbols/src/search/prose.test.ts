import { describe, expect, it } from "vitest";
import { termBag } from "../extract/bag.js";
import type { FileRow, SymbolRow } from "../store/store.js";
import { NameTable } from "./name-table.js";
import { aboutTests, isTestPath, ProseFields, proseTerms, rankFiles } from "./prose.js";

/** A table of files with their text (the bag) and, optionally, the names they define. */
function tableOf(files: Record<string, string | { text: string; defines: string[] }>): NameTable {
  const table = new NameTable();
  Object.entries(files).forEach(([path, spec], i) => {
    const { text, defines } = typeof spec === "string" ? { text: spec, defines: [] } : spec;
    const file: FileRow = {
      id: i + 1,
      path,
      size: text.length,
      mtimeMs: 0,
      hash: "",
      language: "typescript",
      method: "ts-morph",
      status: "ok",
      lineCount: 1,
      indexedAtMs: 0,
    };
    const rows: SymbolRow[] = defines.map((name, k) => ({
      id: (i + 1) * 1000 + k,
      fileId: i + 1,
      key: name,
      name,
      qualifiedName: name,
      kind: "function",
      container: null,
      startLine: 1,
      endLine: 1,
      docStartLine: null,
      signature: "",
      doc: null,
      exported: true,
    }));
    table.setFile(file, rows, termBag(text));
  });
  return table;
}

const ranked = (table: NameTable, goal: string) =>
  rankFiles(table, proseTerms(goal), new ProseFields()).map((file) => file.path);

/** Filler files that all say `value` and `return`, so those words are common. */
const filler = Object.fromEntries(
  Array.from({ length: 12 }, (_, i) => [`src/other${i}.ts`, `export const value${i} = () => { return value; };`]),
);

describe("proseTerms", () => {
  it("drops function words, stems, and puts repeated words first", () => {
    const terms = proseTerms("How are the token costs counted? Count tokens, not bytes");
    expect(terms.map((term) => [term.word, term.count])).toEqual([
      ["token", 2],
      ["count", 2],
      ["cost", 1],
      ["byte", 1],
    ]);
  });

  it("knows a goal about tests", () => {
    expect(aboutTests(proseTerms("fix the flaky watcher test"))).toBe(true);
    expect(aboutTests(proseTerms("fix the watcher on macOS"))).toBe(false);
  });
});

describe("isTestPath", () => {
  it("recognises test, fixture and benchmark files in any language", () => {
    for (const path of [
      "src/a.test.ts",
      "test/unit/a.ts",
      "pkg/__tests__/b.js",
      "tests/test_app.py",
      "app/conftest.py",
      "server/handler_test.go",
      "bench/query.bench.ts",
      "src/fixtures/x.ts",
      "core/src/ConfigTest.java",
    ])
      expect(isTestPath(path), path).toBe(true);
    for (const path of ["src/testing-library.ts", "src/contest.py", "examples/docs-provider.ts", "src/attest.go"])
      expect(isTestPath(path), path).toBe(false);
  });
});

describe("rankFiles", () => {
  it("ranks a rare word above a common one (IDF over the index)", () => {
    const table = tableOf({
      ...filler,
      "src/common.ts": "value value value value return return",
      "src/rare.ts": "export function memoize() { return value; }",
    });
    expect(ranked(table, "memoize the value")[0]).toBe("src/rare.ts");
  });

  it("splits identifiers and stems, so prose finds camelCase code", () => {
    const table = tableOf({
      ...filler,
      "src/budget.ts": "export function countTokens(text) { return tokenCounter.count(text); }",
      "src/other.ts": "export const tokenish = 1;",
    });
    expect(ranked(table, "how are tokens counted")[0]).toBe("src/budget.ts");
  });

  it("counts a word in the path and in defined names above one in the text", () => {
    const table = tableOf({
      ...filler,
      "src/request.ts": "export function params() { return url; }",
      "src/handler.ts": "// a request request\nexport function handleIt(params) { return params; }",
      "src/memo.ts": { text: "export function trimMemo() { return keep; }", defines: ["trimMemo"] },
      "src/keep.ts": "// keep the memo small: trim memo, memo trim\nexport const keep = 1;",
    });
    expect(ranked(table, "fix(request): handle params on unmatched requests")[0]).toBe("src/request.ts");
    expect(ranked(table, "trim the memo")[0]).toBe("src/memo.ts");
  });

  it("ranks tests below the implementation unless the goal is about tests", () => {
    const table = tableOf({
      ...filler,
      "src/watcher.ts": "export function watchTree(dir) { return watch(dir); }",
      "src/watcher.test.ts": "test('watchTree watches', () => { watchTree(dir); watchTree(dir); watch(dir); });",
    });
    expect(ranked(table, "watchTree misses renamed directories")).toEqual(["src/watcher.ts", "src/watcher.test.ts"]);
    expect(ranked(table, "make the watchTree test less flaky")[0]).toBe("src/watcher.test.ts");
  });

  it("finds nothing for words no file has, and scores stay non-negative with coverage in [0, 1]", () => {
    const table = tableOf({ ...filler, "src/a.ts": "export function parse() {}" });
    expect(ranked(table, "pizza recipe for a party")).toEqual([]);
    for (const file of rankFiles(table, proseTerms("parse the value pizza"), new ProseFields())) {
      expect(file.score).toBeGreaterThanOrEqual(0);
      expect(file.coverage).toBeGreaterThan(0);
      expect(file.coverage).toBeLessThanOrEqual(1);
    }
  });
});
