import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createTokenCounter } from "../tokens/counter.js";
import { Bm25Baseline, MAX_LINE_BYTES, WINDOW_LINES, windowsOf } from "./baseline.js";
import { listTextFiles } from "./files.js";
import { readLabelledCases } from "./labelled.js";

const counter = createTokenCounter();
const numbered = (count: number, text = (i: number) => `line ${i}`) =>
  `${Array.from({ length: count }, (_, i) => text(i + 1)).join("\n")}\n`;

describe("windowsOf", () => {
  it("cuts a file into windows of 40 lines, 1-based and inclusive, the last one shorter", () => {
    const windows = windowsOf({ path: "a.ts", text: numbered(95) });
    expect(windows.map((w) => [w.start, w.end])).toEqual([
      [1, 40],
      [41, 80],
      [81, 95],
    ]);
    expect(windows[1]?.text).toBe(numbered(80).split("\n").slice(40, 80).join("\n").concat("\n"));
    expect(WINDOW_LINES).toBe(40);
  });

  it("leaves out over-long lines, which end a window, and blank windows", () => {
    const text = numbered(10, (i) => (i === 5 ? "x".repeat(MAX_LINE_BYTES + 1) : i > 6 ? "" : `line ${i}`));
    expect(windowsOf({ path: "a.ts", text }).map((w) => [w.start, w.end])).toEqual([
      [1, 4],
      [6, 10],
    ]);
    expect(windowsOf({ path: "blank.ts", text: "\n\n  \n" })).toEqual([]);
  });
});

describe("Bm25Baseline", () => {
  const files = [
    {
      path: "src/retry.ts",
      text: `${numbered(40, (i) => `const step${i} = ${i};`)}export function exponentialBackoff() {}\n`,
    },
    { path: "src/logger.ts", text: numbered(60, (i) => `log("message ${i}")`) },
    { path: "src/colors.ts", text: numbered(30, (i) => `export const color${i} = "#${i}";`) },
  ];

  it("ranks the window holding the goal's rare term first and stays within budget and frame limit", () => {
    const bm25 = new Bm25Baseline(files);
    expect(bm25.size).toBe(5);
    const shipped = bm25.answer("retry with exponentialBackoff", 4096, 20, counter);
    expect(shipped[0]).toMatchObject({ path: "src/retry.ts", start: 41, end: 41 });
    const tight = bm25.answer("message color exponentialBackoff", 60, 2, counter);
    expect(tight.length).toBeLessThanOrEqual(2);
    expect(tight.reduce((sum, w) => sum + w.tokenCost, 0)).toBeLessThanOrEqual(60);
    expect(bm25.answer("nothing matches zzzz", 4096, 20, counter)).toEqual([]);
  });

  it("indexes each window's path with its text: a goal naming a module finds its file", () => {
    const bm25 = new Bm25Baseline([
      ...files,
      { path: "src/middleware/cors/index.ts", text: numbered(10, (i) => `export const allowed${i} = [];`) },
    ]);
    expect(bm25.answer("fix(cors): append Origin to Vary", 4096, 20, counter)[0]?.path).toBe(
      "src/middleware/cors/index.ts",
    );
  });

  it("costs a window what the packer counts for its text, and answers the same every time", () => {
    const bm25 = new Bm25Baseline(files);
    const shipped = bm25.answer("log message", 300, 20, counter);
    expect(shipped.length).toBeGreaterThan(0);
    for (const window of shipped) {
      const file = files.find((f) => f.path === window.path)?.text ?? "";
      const text = `${file
        .split("\n")
        .slice(window.start - 1, window.end)
        .join("\n")}\n`;
      expect(window.tokenCost).toBe(counter.count(text));
    }
    expect(new Bm25Baseline([...files].reverse()).answer("log message", 300, 20, counter)).toEqual(shipped);
  });
});

describe("listTextFiles", () => {
  it("skips hidden entries, node_modules, binary and huge files, sorted by path", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ocp-eval-files-"));
    try {
      for (const [path, text] of Object.entries({
        "b.ts": "b\n",
        "a.ts": "a\n",
        ".hidden.ts": "h\n",
        "bin.dat": "x\0y",
        "huge.txt": "z".repeat(1024 * 1024 + 1),
      })) {
        writeFileSync(join(dir, path), text);
      }
      mkdirSync(join(dir, "node_modules"));
      writeFileSync(join(dir, "node_modules", "dep.js"), "d\n");
      const files = await listTextFiles(dir, false);
      expect(files.map((f) => f.path)).toEqual(["a.ts", "b.ts"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("readLabelledCases", () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  function file(text: string): string {
    const dir = mkdtempSync(join(tmpdir(), "ocp-eval-cases-"));
    dirs.push(dir);
    const path = join(dir, "cases.jsonl");
    writeFileSync(path, text);
    return path;
  }

  it("reads one case per line, skipping blank and // lines", () => {
    const cases = readLabelledCases(
      file(
        '// docs\n{"goal":"how are token costs counted","gold":["docs/tokens.md#L1-42"]}\n\n{"goal":"consent","gold":["a","a"]}\n',
      ),
    );
    expect(cases.map((c) => [c.id, c.goal, c.gold])).toEqual([
      ["case-1", "how are token costs counted", ["docs/tokens.md#L1-42"]],
      ["case-2", "consent", ["a"]],
    ]);
  });

  it.each([
    ["{not json", /cases\.jsonl:1: not JSON/],
    ['{"goal":"","gold":["a"]}', /:1: "goal" must be a non-empty string/],
    ['{"goal":"g","gold":[]}', /:1: "gold" must be a non-empty list/],
    ['{"goal":"g","gold":["a"]}\n{"goal":"g","gold":["b"]}', /:2: the goal is already a case above/],
    ["\n\n", /holds no case/],
  ])("names the line of a bad case: %j", (text, message) => {
    expect(() => readLabelledCases(file(text))).toThrow(message);
  });
});
