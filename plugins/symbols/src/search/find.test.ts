import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { SymbolKind } from "../model.js";
import type { FileRow, SymbolRow } from "../store/store.js";
import { type AnchorHints, findSymbols, NO_ANCHORS } from "./find.js";
import { Tier } from "./match.js";
import { NameTable } from "./name-table.js";
import { SCORE_BANDS, symbolScore } from "./rank.js";
import { queryTerms } from "./terms.js";

interface Spec {
  path: string;
  name: string;
  container?: string;
  kind?: SymbolKind;
  exported?: boolean;
  line?: number;
}

/** A table holding `specs`, files created as needed, in the order given. */
function tableOf(specs: readonly Spec[]): NameTable {
  const table = new NameTable();
  const byPath = new Map<string, SymbolRow[]>();
  let id = 1;
  for (const spec of specs) {
    const rows = byPath.get(spec.path) ?? [];
    byPath.set(spec.path, rows);
    const qualifiedName = spec.container ? `${spec.container}.${spec.name}` : spec.name;
    rows.push({
      id: id++,
      fileId: 0,
      key: qualifiedName,
      name: spec.name,
      qualifiedName,
      kind: spec.kind ?? "function",
      container: spec.container ?? null,
      startLine: spec.line ?? rows.length + 1,
      endLine: spec.line ?? rows.length + 1,
      docStartLine: null,
      signature: "",
      doc: null,
      exported: spec.exported ?? true,
    });
  }
  let fileId = 1;
  for (const [path, rows] of byPath) {
    const file: FileRow = {
      id: fileId++,
      path,
      size: 0,
      mtimeMs: 0,
      hash: "",
      language: "typescript",
      method: "ts-morph",
      status: "ok",
      lineCount: 100,
      indexedAtMs: 0,
    };
    table.setFile(
      file,
      rows.map((row) => ({ ...row, fileId: file.id })),
    );
  }
  return table;
}

const ranked = (table: NameTable, text: string, anchors: AnchorHints = NO_ANCHORS, limit = 50) =>
  findSymbols(table, queryTerms(text), anchors, limit).top.map((hit) => hit.entry.qualifiedName);

describe("symbolScore", () => {
  const factors = fc.record({
    tier: fc.constantFrom(Tier.Exact, Tier.CaseInsensitive, Tier.Prefix, Tier.Subword, Tier.Fuzzy, "context" as const),
    exported: fc.boolean(),
    coverage: fc.double({ min: 0, max: 1, noNaN: true }),
    anchor: fc.constantFrom(0, 0.5, 1),
    quality: fc.double({ min: 0, max: 1, noNaN: true }),
  });
  const order = ["context", Tier.Fuzzy, Tier.Subword, Tier.Prefix, Tier.CaseInsensitive, Tier.Exact];

  it("stays in [0, 1] and inside the tier's band", () => {
    fc.assert(
      fc.property(factors, (f) => {
        const score = symbolScore(f);
        const [low, high] = SCORE_BANDS[f.tier];
        expect(score).toBeGreaterThanOrEqual(low);
        expect(score).toBeLessThanOrEqual(high);
        expect(score).toBeLessThanOrEqual(1);
      }),
      { numRuns: 500 },
    );
  });

  it("never lets a worse tier outscore a better one, whatever the other factors", () => {
    fc.assert(
      fc.property(factors, factors, (a, b) => {
        const rank = (tier: Tier | "context") => order.indexOf(tier);
        if (rank(a.tier) > rank(b.tier)) expect(symbolScore(a)).toBeGreaterThan(symbolScore(b));
      }),
      { numRuns: 1000 },
    );
  });
});

describe("findSymbols ranking", () => {
  it("orders exact > case-insensitive > prefix > subword > fuzzy", () => {
    const table = tableOf([
      { path: "a.ts", name: "parseConfigFile" },
      { path: "b.ts", name: "readParseConfig" },
      { path: "c.ts", name: "parseconfig" },
      { path: "d.ts", name: "parseConfig" },
      { path: "e.ts", name: "parseConfgi" },
      { path: "f.ts", name: "unrelated" },
    ]);
    expect(ranked(table, "parseConfig")).toEqual([
      "parseConfig",
      "parseconfig",
      "parseConfigFile",
      "readParseConfig",
      "parseConfgi",
    ]);
  });

  it("puts exported above private in the same tier", () => {
    const table = tableOf([
      { path: "a.ts", name: "retry", exported: false },
      { path: "b.ts", name: "retry", exported: true },
    ]);
    expect(findSymbols(table, queryTerms("retry"), NO_ANCHORS, 10).top.map((hit) => hit.path)).toEqual([
      "b.ts",
      "a.ts",
    ]);
  });

  it("boosts symbols in anchored files and members of anchored symbols, and lists an anchored file's symbols", () => {
    const table = tableOf([
      { path: "src/a.ts", name: "load" },
      { path: "src/b.ts", name: "load" },
      { path: "lib/c.ts", name: "load", container: "Config", kind: "method" },
      { path: "src/b.ts", name: "helper" },
    ]);
    const files: AnchorHints = { files: new Set(["src/b.ts"]), dirs: new Set(["src"]), trees: new Set(), symbols: [] };
    expect(ranked(table, "load", files)).toEqual(["load", "load", "Config.load", "helper"]);
    expect(findSymbols(table, queryTerms("load"), files, 10).top[0]?.path).toBe("src/b.ts");
    const named: AnchorHints = { ...NO_ANCHORS, symbols: ["Config"] };
    expect(ranked(table, "load", named)[0]).toBe("Config.load");
  });

  it("reads 'pack frames' as packFrames, above a symbol named after one word", () => {
    const table = tableOf([
      { path: "a.ts", name: "pack" },
      { path: "b.ts", name: "packFrames" },
      { path: "c.ts", name: "frames" },
    ]);
    expect(ranked(table, "how are frames packed: pack frames")[0]).toBe("packFrames");
  });

  it("prefers the kind the query names", () => {
    const table = tableOf([
      { path: "a.ts", name: "Config", kind: "interface" },
      { path: "b.ts", name: "Config", kind: "class" },
    ]);
    expect(ranked(table, "the Config class")).toEqual(["Config", "Config"]);
    expect(findSymbols(table, queryTerms("the Config class"), NO_ANCHORS, 10).top[0]?.entry.kind).toBe("class");
  });

  it("keeps the best `limit` and counts every match; the order does not depend on insertion order", () => {
    const specs: Spec[] = Array.from({ length: 60 }, (_, i) => ({
      path: `src/m${i % 7}.ts`,
      name: ["getValue", "getvalue", "getValueOr", "valueGetter", "gtValue"][i % 5] as string,
      exported: i % 3 !== 0,
      line: i + 1,
    }));
    const full = findSymbols(tableOf(specs), queryTerms("getValue"), NO_ANCHORS, 1000);
    const top = findSymbols(tableOf(specs), queryTerms("getValue"), NO_ANCHORS, 10);
    expect(top.total).toBe(full.total);
    expect(top.top.map((hit) => hit.entry.key + hit.path)).toEqual(
      full.top.slice(0, 10).map((hit) => hit.entry.key + hit.path),
    );
    fc.assert(
      fc.property(fc.shuffledSubarray(specs, { minLength: specs.length }), (shuffled) => {
        const again = findSymbols(tableOf(shuffled), queryTerms("getValue"), NO_ANCHORS, 10);
        expect(again.top.map((hit) => `${hit.path}:${hit.entry.startLine}`)).toEqual(
          top.top.map((hit) => `${hit.path}:${hit.entry.startLine}`),
        );
      }),
      { numRuns: 30 },
    );
  });
});
