import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { sliceLines } from "ocp-provider";
import { afterEach, describe, expect, it } from "vitest";
import { extractFile } from "../extract/extract.js";
import { LANGUAGES, languageOf } from "../model.js";
import { symbolKeys, symbolRows } from "../store/store.js";
import { type FixtureTree, fixtureTree } from "../test-support/fixture-tree.js";
import { buildCandidates, type ContentLimits } from "./candidates.js";
import { findSymbols, NO_ANCHORS } from "./find.js";
import { NameTable } from "./name-table.js";
import { queryTerms } from "./terms.js";

const LIMITS: ContentLimits = {
  maxContentLines: 60,
  maxContentBytes: 8192,
  maxLineBytes: 1000,
  maxViewLines: 1000,
  maxReferences: 8,
};

describe("buildCandidates", () => {
  const trees: FixtureTree[] = [];
  afterEach(() => {
    for (const tree of trees.splice(0)) tree.remove();
  });

  /** A name table over some fixture files, as the indexer would fill it. */
  async function tableFor(root: string, paths: readonly string[]): Promise<NameTable> {
    const table = new NameTable();
    let id = 1;
    for (const [i, path] of paths.entries()) {
      const bytes = readFileSync(join(root, path));
      const extraction = await extractFile(bytes, path);
      const language = languageOf(path) ?? "typescript";
      const file = {
        id: i + 1,
        path,
        // The real size (the reader reads no more than the indexed size); mtime 0 makes every read hash-checked.
        size: bytes.length,
        mtimeMs: 0,
        hash: extraction.hash,
        language,
        method: LANGUAGES[language].method,
        status: extraction.status,
        lineCount: extraction.lineCount,
        indexedAtMs: Date.UTC(2026, 0, 1),
      };
      const rows = symbolRows(extraction.symbols, symbolKeys(extraction.symbols), file.id, id);
      id += rows.length;
      table.setFile(file, rows, extraction.bag);
    }
    return table;
  }

  it("offers the doc comment and signature, with the whole method and larger sections up to the file as views, all exact lines, and relations by display name", async () => {
    const fixtures = fixtureTree();
    trees.push(fixtures);
    const table = await tableFor(fixtures.root, ["typescript/config.ts", "go/server.go"]);
    const found = findSymbols(table, queryTerms("Config.retry"), NO_ANCHORS, 5);
    const built = buildCandidates(found.top, table, { ...LIMITS, root: fixtures.root });
    const [retry] = built.candidates;
    const source = readFileSync(join(fixtures.root, "typescript/config.ts"), "utf8");
    const fileUri = pathToFileURL(join(fixtures.root, "typescript/config.ts")).href;
    expect(retry).toMatchObject({
      id: "typescript/config.ts#Config.retry",
      kind: "symbol",
      title: "Config.retry (method)",
      path: "typescript/config.ts",
      uri: fileUri,
      range: { start: 30, end: 31 },
      pointerLine: 31,
      provenance: [{ type: "file", method: "ts-morph" }],
    });
    expect(retry?.content).toBe(sliceLines(source, 30, 31));
    expect(retry?.content.startsWith("  /** Retries `task`")).toBe(true);
    // Larger views, smallest first, each the exact lines it cites: the method whole, then out to the file.
    const views = retry?.resolutions ?? [];
    expect(views[0]).toMatchObject({ range: { start: 30, end: 41 }, title: "Config.retry (method)" });
    expect(views.at(-1)).toMatchObject({
      range: { start: 1, end: 84 },
      title: "Config.retry (method) and its whole file",
    });
    for (const view of views) {
      expect(view.content).toBe(sliceLines(source, view.range.start, view.range.end));
      expect(view.relevance).toBeGreaterThan(0);
      expect(view.relevance).toBeLessThanOrEqual(retry?.relevance as number);
    }
    expect(retry?.relations).toEqual([
      { rel: "defined-in", targetUri: fileUri, displayName: "typescript/config.ts" },
      { rel: "member-of", targetUri: `${fileUri}#L22-58`, displayName: "Config (class)" },
      // RetryPolicy ships in the same answer: named first.
      {
        rel: "references",
        targetUri: `${fileUri}#L4-8`,
        displayName: "RetryPolicy (interface) in typescript/config.ts",
      },
      // Textual: the doc comment's "backoff" names RetryPolicy.backoff, the only symbol of that name.
      {
        rel: "references",
        targetUri: `${fileUri}#L7-7`,
        displayName: "RetryPolicy.backoff (method) in typescript/config.ts",
      },
      {
        rel: "references",
        targetUri: `${fileUri}#L6-6`,
        displayName: "RetryPolicy.attempts (property) in typescript/config.ts",
      },
      // And its doc comment ("How often and how patiently to retry") names retry back.
      {
        rel: "referenced-by",
        targetUri: `${fileUri}#L4-8`,
        displayName: "RetryPolicy (interface) in typescript/config.ts",
      },
    ]);
    expect(built.stale).toEqual([]);
  });

  it("relates the frames of one answer as callers and callees, and names other files that use a symbol", async () => {
    const fixtures = fixtureTree();
    trees.push(fixtures);
    fixtures.write("app/budget.ts", "export function splitBudget(total: number): number {\n  return total / 2;\n}\n");
    fixtures.write(
      "app/plan.ts",
      'import { splitBudget } from "./budget";\nexport function planAnswer(): number {\n  return splitBudget(10);\n}\n',
    );
    fixtures.write("cli/main.ts", 'import { splitBudget } from "../app/budget";\nconsole.log(splitBudget(4));\n');
    const paths = ["app/budget.ts", "app/plan.ts", "cli/main.ts"];
    const table = await tableFor(fixtures.root, paths);
    const found = findSymbols(table, queryTerms("splitBudget planAnswer"), NO_ANCHORS, 5);
    const built = buildCandidates(found.top, table, { ...LIMITS, root: fixtures.root });
    const uri = (path: string) => pathToFileURL(join(fixtures.root, path)).href;
    const split = built.candidates.find((candidate) => candidate.title === "splitBudget (function)");
    const plan = built.candidates.find((candidate) => candidate.title === "planAnswer (function)");
    expect(plan?.relations).toContainEqual({
      rel: "references",
      targetUri: `${uri("app/budget.ts")}#L1-3`,
      displayName: "splitBudget (function) in app/budget.ts",
    });
    // Its caller in this answer first, then a file that uses it and ships nothing of its own.
    expect(split?.relations?.filter((relation) => relation.rel === "referenced-by")).toEqual([
      {
        rel: "referenced-by",
        targetUri: `${uri("app/plan.ts")}#L2-4`,
        displayName: "planAnswer (function) in app/plan.ts",
      },
      { rel: "referenced-by", targetUri: uri("cli/main.ts"), displayName: "cli/main.ts" },
    ]);
  });

  it("finds a Go method's receiver type as its container", async () => {
    const fixtures = fixtureTree();
    trees.push(fixtures);
    const table = await tableFor(fixtures.root, ["go/server.go"]);
    const built = buildCandidates(findSymbols(table, queryTerms("Server.Start"), NO_ANCHORS, 1).top, table, {
      ...LIMITS,
      root: fixtures.root,
    });
    expect(built.candidates[0]?.relations?.find((relation) => relation.rel === "member-of")?.displayName).toBe(
      "Server (struct)",
    );
  });

  it("reports a file whose bytes changed as stale instead of citing it", async () => {
    const fixtures = fixtureTree();
    trees.push(fixtures);
    const table = await tableFor(fixtures.root, ["python/config.py"]);
    writeFileSync(join(fixtures.root, "python/config.py"), "# rewritten\n");
    const built = buildCandidates(findSymbols(table, queryTerms("load_config"), NO_ANCHORS, 5).top, table, {
      ...LIMITS,
      root: fixtures.root,
    });
    expect(built).toMatchObject({ candidates: [], stale: ["python/config.py"] });
  });
});
