import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bracketBalance, enclosingBlocks, indentation } from "./blocks.js";
import { FileText, viewRanges } from "./views.js";

const source = (text: string) => new FileText(text);
const lineOf = (text: string, needle: string) => text.split("\n").findIndex((line) => line.includes(needle)) + 1;

const TS = `import { x } from "./x.js";

/**
 * Parses it.
 */
export function parse(input: string): number {
  const a = 1;
  if (input === "") {
    return a;
  } else {
    return a + input.length;
  }
}

export const handler = async (
  c: Context,
  next: Next,
) => {
  await next();
  c.header("x", "y");
};
`;

const PY = `import os


class Reader:
    """Reads."""

    @property
    def name(self):
        value = os.getcwd()
        return value

    def other(self):
        return 1
`;

describe("enclosingBlocks", () => {
  it("climbs from a line to its branch, the whole if/else, the function with its doc comment", () => {
    const line = lineOf(TS, "return a + input.length");
    const blocks = enclosingBlocks(source(TS), { start: line, end: line });
    expect(blocks).toEqual([
      { start: line - 3, end: line + 1 }, // if (…) { … } else { … }
      { start: lineOf(TS, "/**"), end: lineOf(TS, "return a + input") + 2 }, // the function, doc comment included
    ]);
  });

  it("takes a multi-line signature with its body", () => {
    const line = lineOf(TS, "c.header");
    const blocks = enclosingBlocks(source(TS), { start: line, end: line });
    expect(blocks[0]).toEqual({ start: lineOf(TS, "export const handler"), end: lineOf(TS, "};") });
  });

  it("reads indentation alone where a language has no brackets: the method with its decorator, then the class", () => {
    const line = lineOf(PY, "value = os.getcwd()");
    const blocks = enclosingBlocks(source(PY), { start: line, end: line });
    expect(blocks).toEqual([
      { start: lineOf(PY, "@property"), end: lineOf(PY, "return value") },
      { start: lineOf(PY, "class Reader"), end: lineOf(PY, "return 1") },
    ]);
  });

  it("offers no block whose brackets do not balance", () => {
    const text = "function f() {\n  const s = `\nstray }\n`;\n  use(s);\n}\n";
    const line = lineOf(text, "use(s)");
    // Indentation says the header is "stray }" (a dedented template line); its brackets say otherwise.
    for (const block of enclosingBlocks(source(text), { start: line, end: line })) {
      expect(bracketBalance(source(text), block.start, block.end)).toBe(0);
    }
  });

  it("counts tabs and spaces as indentation and blank lines as none", () => {
    expect(indentation("\t  x")).toBe(6);
    expect(indentation("   \r")).toBeUndefined();
    expect(indentation("x")).toBe(0);
  });

  const codeLine = fc
    .tuple(
      fc.integer({ min: 0, max: 6 }),
      fc.constantFrom("", "x = 1", "f() {", "}", "})", "} else {", "// note", "@dec", "end", "def f():", "(", ")", "`"),
    )
    .map(([depth, text]) => `${"  ".repeat(depth)}${text}`);
  const file = fc.array(codeLine, { minLength: 1, maxLength: 60 }).map((lines) => `${lines.join("\n")}\n`);
  const fileAndRange = file.chain((text) => {
    const count = source(text).lineCount;
    return fc
      .tuple(fc.integer({ min: 1, max: count }), fc.integer({ min: 0, max: 5 }))
      .map(([start, length]) => ({ text, range: { start, end: Math.min(count, start + length) } }));
  });

  it("always holds the range, stays in the file, and nests strictly, whatever the text", () => {
    fc.assert(
      fc.property(fileAndRange, ({ text, range }) => {
        const src = source(text);
        let inner = range;
        for (const block of enclosingBlocks(src, range)) {
          expect(block.start).toBeGreaterThanOrEqual(1);
          expect(block.end).toBeLessThanOrEqual(src.lineCount);
          expect(block.start <= inner.start && inner.end <= block.end).toBe(true);
          expect(block.end - block.start).toBeGreaterThan(inner.end - inner.start);
          expect(bracketBalance(src, block.start, block.end)).toBe(0);
          inner = block;
        }
      }),
      { numRuns: 500 },
    );
  });

  it("views hold the window and each other, stay in the file and the size bound, never hold a blocked line, and hold what they fold", () => {
    fc.assert(
      fc.property(
        fileAndRange,
        fc.array(fc.tuple(fc.nat(80), fc.nat(6)), { maxLength: 3 }),
        fc.integer({ min: 1, max: 80 }),
        fc.integer({ min: 1, max: 80 }),
        fc.integer({ min: 20, max: 4000 }),
        fc.option(fc.nat(80)),
        ({ text, range }, spans, foldLines, wholeFileLines, maxUnits, blockedLine) => {
          const src = source(text);
          const others = spans
            .map(([start, length]) => ({ start: start + 1, end: start + 1 + length }))
            .filter((other) => other.end <= src.lineCount);
          const isBlocked = (line: number) => line === blockedLine;
          const plan = viewRanges(src, range, others, { foldLines, wholeFileLines, maxUnits, isBlocked });
          let inner = range;
          for (const view of plan.views) {
            expect(view.start).toBeGreaterThanOrEqual(1);
            expect(view.end).toBeLessThanOrEqual(src.lineCount);
            expect(view.start <= inner.start && inner.end <= view.end).toBe(true);
            expect(view.end - view.start).toBeGreaterThan(inner.end - inner.start);
            expect(src.slice(view.start, view.end).length).toBeLessThanOrEqual(maxUnits);
            for (let line = view.start; line <= view.end; line++) {
              if (line < range.start || line > range.end) expect(isBlocked(line)).toBe(false);
            }
            inner = view;
          }
          for (const index of plan.folded) {
            const other = others[index] as { start: number; end: number };
            expect(inner.start <= other.start && other.end <= inner.end).toBe(true);
          }
          if (src.lineCount <= wholeFileLines && text.length <= maxUnits && blockedLine === null) {
            const whole = range.start === 1 && range.end === src.lineCount;
            expect(whole || (inner.start === 1 && inner.end === src.lineCount)).toBe(true);
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it("keeps every byte: a file's lines sliced back together are the file", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom("a", "b\r", "", "  c"), { maxLength: 12 }), fc.boolean(), (lines, end) => {
        const text = lines.join("\n") + (end && lines.length > 0 ? "\n" : "");
        const src = source(text);
        expect(src.lineCount === 0 ? "" : src.slice(1, src.lineCount)).toBe(text);
      }),
    );
  });
});
