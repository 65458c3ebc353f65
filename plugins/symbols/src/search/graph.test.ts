import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { termBag } from "../extract/bag.js";
import type { FileRow, SymbolRow } from "../store/store.js";
import { buildGraph, MAX_DEFINERS, personalizedPageRank, type ReferenceGraph, reverse } from "./graph.js";
import { NameTable } from "./name-table.js";

/** A graph of `size` nodes from weighted links (duplicates add up), rows normalised as buildGraph does. */
function graphOf(size: number, links: readonly [number, number, number][]): ReferenceGraph {
  const rows = Array.from({ length: size }, () => new Map<number, number>());
  for (const [from, to, weight] of links) {
    if (from === to) continue;
    const row = rows[from] as Map<number, number>;
    row.set(to, (row.get(to) ?? 0) + weight);
  }
  const rowStart = new Int32Array(size + 1);
  const targets: number[] = [];
  const shares: number[] = [];
  rows.forEach((row, node) => {
    const sum = [...row.values()].reduce((a, b) => a + b, 0);
    for (const target of [...row.keys()].sort((a, b) => a - b)) {
      targets.push(target);
      shares.push((row.get(target) as number) / sum);
    }
    rowStart[node + 1] = targets.length;
  });
  const fileIds = Int32Array.from({ length: size }, (_, i) => i + 1);
  return {
    fileIds,
    nodes: new Map([...fileIds].map((id, node) => [id, node])),
    rowStart,
    targets: Int32Array.from(targets),
    shares: Float64Array.from(shares),
    ...reverse(rowStart, targets),
    names: new Map(),
    version: 0,
  };
}

const graphs = fc.integer({ min: 1, max: 12 }).chain((size) =>
  fc.record({
    size: fc.constant(size),
    links: fc.array(
      fc.tuple(fc.nat({ max: size - 1 }), fc.nat({ max: size - 1 }), fc.double({ min: 0.1, max: 5, noNaN: true })),
      { maxLength: 40 },
    ),
    seeds: fc.array(fc.tuple(fc.nat({ max: size - 1 }), fc.double({ min: 0.01, max: 3, noNaN: true })), {
      minLength: 1,
      maxLength: 4,
    }),
  }),
);

const sum = (values: Float64Array) => values.reduce((a, b) => a + b, 0);

describe("personalizedPageRank", () => {
  it("is a probability distribution over the nodes", () => {
    fc.assert(
      fc.property(graphs, ({ size, links, seeds }) => {
        const rank = personalizedPageRank(graphOf(size, links), new Map(seeds));
        expect(rank).toHaveLength(size);
        for (const value of rank) expect(value).toBeGreaterThanOrEqual(0);
        expect(sum(rank)).toBeCloseTo(1, 6);
      }),
      { numRuns: 300 },
    );
  });

  it("gives nothing to a node no seed can reach", () => {
    fc.assert(
      fc.property(graphs, ({ size, links, seeds }) => {
        const graph = graphOf(size, links);
        const seedMap = new Map(seeds);
        const reached = new Set(seedMap.keys());
        for (let grew = true; grew; ) {
          grew = false;
          for (const [from, to] of links) {
            if (from !== to && reached.has(from) && !reached.has(to)) {
              reached.add(to);
              grew = true;
            }
          }
        }
        const rank = personalizedPageRank(graph, seedMap);
        for (let node = 0; node < size; node++) if (!reached.has(node)) expect(rank[node]).toBe(0);
      }),
      { numRuns: 300 },
    );
  });

  it("does not depend on how the nodes are numbered", () => {
    fc.assert(
      fc.property(
        graphs.chain((input) =>
          fc.record({
            input: fc.constant(input),
            order: fc.shuffledSubarray([...Array(input.size).keys()], { minLength: input.size }),
          }),
        ),
        ({ input, order }) => {
          const { size, links, seeds } = input;
          const rename = (node: number) => order[node] as number;
          const rank = personalizedPageRank(graphOf(size, links), new Map(seeds));
          const renamed = personalizedPageRank(
            graphOf(
              size,
              links.map(([from, to, weight]) => [rename(from), rename(to), weight]),
            ),
            new Map(seeds.map(([node, weight]) => [rename(node), weight])),
          );
          for (let node = 0; node < size; node++) expect(renamed[rename(node)]).toBeCloseTo(rank[node] as number, 9);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("is the seed distribution itself without damping, and zero without seeds", () => {
    const graph = graphOf(3, [
      [0, 1, 1],
      [1, 2, 1],
    ]);
    expect([
      ...personalizedPageRank(
        graph,
        new Map([
          [0, 3],
          [2, 1],
        ]),
        0,
      ),
    ]).toEqual([0.75, 0, 0.25]);
    expect([...personalizedPageRank(graph, new Map())]).toEqual([0, 0, 0]);
  });

  it("moves weight down a chain from the seed, less at each step, and to the better-linked of two targets", () => {
    // 0 → 1 → 2, and 0 links to 3 with a tenth of the weight it gives 1.
    const rank = personalizedPageRank(
      graphOf(4, [
        [0, 1, 10],
        [1, 2, 1],
        [0, 3, 1],
      ]),
      new Map([[0, 1]]),
    );
    expect(rank[0]).toBeGreaterThan(rank[1] as number);
    expect(rank[1]).toBeGreaterThan(rank[2] as number);
    expect(rank[2]).toBeGreaterThan(0);
    expect(rank[1]).toBeGreaterThan(rank[3] as number);
  });
});

describe("buildGraph", () => {
  /** A table of files with their text (for the bags) and the names they define. */
  function tableOf(files: readonly { path: string; text: string; defines: string[] }[]): NameTable {
    const table = new NameTable();
    files.forEach(({ path, text, defines }, i) => {
      const id = i + 1;
      const file: FileRow = {
        id,
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
        id: id * 1000 + k,
        fileId: id,
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

  it("links a file to the files defining the names its text uses, not to itself", () => {
    const table = tableOf([
      { path: "config.ts", text: "export function parseConfig() { return loadFile(); }", defines: ["parseConfig"] },
      { path: "files.ts", text: "export function loadFile() {}", defines: ["loadFile"] },
      { path: "main.ts", text: "parseConfig(); parseConfig();", defines: ["main"] },
    ]);
    const graph = buildGraph(table);
    const links = (path: string) => {
      const node = graph.nodes.get(table.fileByPath(path)?.id as number) as number;
      return [...graph.targets.subarray(graph.rowStart[node], graph.rowStart[node + 1])].map(
        (target) => table.file(graph.fileIds[target] as number)?.path,
      );
    };
    expect(links("config.ts")).toEqual(["files.ts"]);
    expect(links("main.ts")).toEqual(["config.ts"]);
    expect(links("files.ts")).toEqual([]);
    const linkedFrom = (path: string) => {
      const node = graph.nodes.get(table.fileByPath(path)?.id as number) as number;
      return [...graph.sources.subarray(graph.sourceStart[node], graph.sourceStart[node + 1])].map(
        (source) => table.file(graph.fileIds[source] as number)?.path,
      );
    };
    expect(linkedFrom("files.ts")).toEqual(["config.ts"]);
    expect(linkedFrom("config.ts")).toEqual(["main.ts"]);
    expect(linkedFrom("main.ts")).toEqual([]);
    // Seeded at main.ts, the walk reaches config.ts, then files.ts.
    const rank = personalizedPageRank(
      graph,
      new Map([[graph.nodes.get(table.fileByPath("main.ts")?.id as number) as number, 1]]),
    );
    const of = (path: string) => rank[graph.nodes.get(table.fileByPath(path)?.id as number) as number] as number;
    expect(of("config.ts")).toBeGreaterThan(of("files.ts"));
    expect(of("files.ts")).toBeGreaterThan(0);
  });

  it("ignores a name defined in too many files to say which is meant", () => {
    const definers = Array.from({ length: MAX_DEFINERS + 1 }, (_, i) => ({
      path: `handlers/h${i}.ts`,
      text: "export function handle() {}",
      defines: ["handle"],
    }));
    const table = tableOf([...definers, { path: "app.ts", text: "handle(); handle();", defines: ["app"] }]);
    const graph = buildGraph(table);
    const node = graph.nodes.get(table.fileByPath("app.ts")?.id as number) as number;
    expect(graph.rowStart[node + 1]).toBe(graph.rowStart[node]);
  });
});
