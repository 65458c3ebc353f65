import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { lineStarts, type Source } from "./sources.js";
import {
  type Definition,
  focusOf,
  GROWTH,
  headOf,
  ladderOf,
  MAX_STEP,
  Outline,
  type Span,
  spanOf,
  type ViewLimits,
} from "./views.js";

const LIMITS: ViewLimits = { maxContentLines: 60, maxContentBytes: 8192, maxLineBytes: 200, maxViewLines: 1000 };

const sourceOf = (text: string): Source => ({ text, starts: lineStarts(text) });
const chars = (source: Source, span: Span) =>
  (source.starts[span.end] as number) - (source.starts[span.start - 1] as number);
const holds = (outer: Span, inner: Span) => outer.start <= inner.start && inner.end <= outer.end;

/** A file of 1–120 lines, some blank, a few over-long, some opening a body. */
const file = fc
  .array(
    fc.oneof(
      { weight: 6, arbitrary: fc.string({ maxLength: 30 }).map((line) => line.replace(/[\r\n]/g, "")) },
      { weight: 2, arbitrary: fc.constantFrom("function f() {", "class A {", "def g(x):", "}", "") },
      { weight: 1, arbitrary: fc.constant("x".repeat(300)) },
    ),
    { minLength: 1, maxLength: 120 },
  )
  .chain((lines) => fc.boolean().map((terminated) => lines.join("\n") + (terminated ? "\n" : "")))
  .map((text) => (text === "" ? "x" : text));

/** Definitions over `lineCount` lines, nested or apart as a parser reports them (never crossing). */
function definitions(lineCount: number): fc.Arbitrary<Definition[]> {
  const one = fc
    .tuple(fc.integer({ min: 1, max: lineCount }), fc.integer({ min: 1, max: lineCount }), fc.nat(3))
    .map(([a, b, doc]) => {
      const startLine = Math.min(a, b);
      return {
        startLine,
        endLine: Math.max(a, b),
        docStartLine: doc > 0 && startLine - doc >= 1 ? startLine - doc : undefined,
      };
    });
  return fc.array(one, { minLength: 1, maxLength: 25 }).map((all) => {
    const kept: Definition[] = [];
    for (const definition of all) {
      const span = spanOf(definition, lineCount);
      const crosses = kept.some((other) => {
        const o = spanOf(other, lineCount);
        const apart = o.end < span.start || span.end < o.start;
        return !apart && !holds(o, span) && !holds(span, o);
      });
      if (!crosses) kept.push(definition);
    }
    return kept;
  });
}

const cases = file.chain((text) => {
  const source = sourceOf(text);
  const lineCount = source.starts.length - 1;
  return definitions(lineCount).chain((defs) =>
    fc.record({
      source: fc.constant(source),
      defs: fc.constant(defs),
      pick: fc.nat(defs.length - 1),
      // Goal weight per line, as running sums (or none: a lookup).
      goal: fc.option(fc.array(fc.nat(3), { minLength: lineCount, maxLength: lineCount }), { nil: undefined }),
      maxViewLines: fc.integer({ min: 1, max: 150 }),
    }),
  );
});

const overLong = (source: Source, line: number) =>
  Buffer.byteLength(source.text.slice(source.starts[line - 1], source.starts[line])) > LIMITS.maxLineBytes;

describe("larger views of a definition", () => {
  it("property: each view holds the one before and more, grows by at most MAX_STEP (plus a line), and holds no over-long line", () => {
    fc.assert(
      fc.property(cases, ({ source, defs, pick, goal, maxViewLines }) => {
        const lineCount = source.starts.length - 1;
        const limits = { ...LIMITS, maxViewLines };
        const outline = new Outline(defs, lineCount);
        const definition = defs[pick] as Definition;
        let sums: number[] | undefined;
        if (goal !== undefined) {
          sums = [0];
          for (const w of goal) sums.push((sums.at(-1) as number) + w);
        }
        const weight = sums && ((span: Span) => (sums[span.end] as number) - (sums[span.start - 1] as number));
        const ladder = ladderOf(definition, outline, source, limits, weight);
        const span = spanOf(definition, lineCount);
        if (ladder === undefined) {
          // Only a definition whose first line is over-long has no frame.
          expect(overLong(source, span.start)).toBe(true);
          return;
        }
        const { own, pointerLine, views } = ladder;
        expect(holds(span, own)).toBe(true);
        if (pointerLine !== undefined) expect(pointerLine).toBe(definition.startLine);
        if (pointerLine !== undefined) expect(holds(own, { start: pointerLine, end: pointerLine })).toBe(true);
        let previous = own;
        let longest = 0;
        for (let line = 1; line <= lineCount; line++)
          longest = Math.max(longest, chars(source, { start: line, end: line }));
        for (const view of views) {
          expect(holds(view, previous)).toBe(true);
          expect(view.start < previous.start || previous.end < view.end).toBe(true);
          expect(view.start).toBeGreaterThanOrEqual(1);
          expect(view.end).toBeLessThanOrEqual(lineCount);
          expect(view.end - view.start + 1).toBeLessThanOrEqual(maxViewLines);
          expect(chars(source, view)).toBeLessThanOrEqual(MAX_STEP * chars(source, previous) + longest);
          for (let line = view.start; line <= view.end; line++) expect(overLong(source, line)).toBe(false);
          previous = view;
        }
        const kinds = views.map((view) => view.kind);
        // The whole definition comes first when it is more than its head.
        if (own.start !== span.start || own.end !== span.end) {
          const whole = views.findIndex((view) => view.kind === "definition");
          if (whole !== -1) expect(views[whole]).toMatchObject(span);
        }
        expect(kinds.filter((kind) => kind === "definition").length).toBeLessThanOrEqual(1);
        // The whole file is offered when nothing bars it.
        let barred = lineCount > maxViewLines || own.end - own.start + 1 > maxViewLines;
        for (let line = 1; line <= lineCount; line++) barred ||= overLong(source, line);
        if (!barred) expect(previous).toEqual({ ...previous, start: 1, end: lineCount });
      }),
      { numRuns: 400 },
    );
  });

  it("a method's ladder: head, method, its neighbours in the class, then beyond, up to the file", () => {
    const method = (name: string, body: number) => [
      `  /** ${name} does it. */`,
      `  ${name}(x: number): number {`,
      ...Array.from({ length: body }, (_, i) => `    x = step(x, ${i}); // a line of ${name}`),
      "    return x;",
      "  }",
    ];
    const lines = [
      'import { step } from "./step.js";',
      "",
      "/** The class. */",
      "export class Worker {",
      ...method("first", 3),
      ...method("second", 6),
      ...method("third", 12),
      ...method("fourth", 24),
      "}",
      "",
      ...Array.from({ length: 60 }, (_, i) => `export const c${i} = ${i};`),
    ];
    const source = sourceOf(`${lines.join("\n")}\n`);
    const at = (text: string) => lines.indexOf(text) + 1;
    const def = (name: string, body: number): Definition => ({
      startLine: at(`  ${name}(x: number): number {`),
      endLine: at(`  ${name}(x: number): number {`) + body + 2,
      docStartLine: at(`  ${name}(x: number): number {`) - 1,
    });
    const worker = { startLine: 4, endLine: at("}"), docStartLine: 3 };
    const second = def("second", 6);
    const defs = [worker, def("first", 3), second, def("third", 12), def("fourth", 24)];
    const ladder = ladderOf(second, new Outline(defs, lines.length), source, LIMITS);
    expect(ladder?.own).toEqual({ start: second.docStartLine, end: second.startLine });
    expect(ladder?.pointerLine).toBe(second.startLine);
    const views = ladder?.views ?? [];
    expect(views.find((view) => view.kind === "definition")).toMatchObject({
      start: second.docStartLine,
      end: second.endLine,
    });
    expect(views.some((view) => view.kind === "section" && view.start >= worker.docStartLine)).toBe(true);
    // Within the class before beyond it: the view that first leaves the class holds all of it.
    const leaving = views.findIndex((view) => view.start < worker.docStartLine || view.end > worker.endLine);
    expect(views[leaving - 1]?.end).toBeLessThanOrEqual(worker.endLine);
    expect(holds(views[leaving] as Span, { start: worker.docStartLine, end: worker.endLine })).toBe(true);
    expect(views.at(-1)).toMatchObject({ kind: "file", start: 1, end: lines.length });
    for (let i = 1; i < views.length; i++) {
      expect(chars(source, views[i] as Span)).toBeGreaterThanOrEqual(
        Math.min(GROWTH * chars(source, views[i - 1] as Span), chars(source, { start: 1, end: lines.length })) - 200,
      );
    }
  });

  it("a head is the doc comment and the declaration up to the line that opens its body", () => {
    const source = sourceOf(
      [
        "/**",
        " * Long-winded.",
        " */",
        "export function f(",
        "  a: number,",
        "  b: number,",
        "): number {",
        "  return a + b;",
        "  // more",
        "}",
      ].join("\n"),
    );
    expect(headOf({ startLine: 4, endLine: 10, docStartLine: 1 }, source, LIMITS)).toEqual({ start: 1, end: 7 });
    expect(headOf({ startLine: 4, endLine: 10, docStartLine: 1 }, source, { ...LIMITS, maxContentLines: 2 })).toEqual({
      start: 1,
      end: 2,
    });
    const python = sourceOf(["def g(x):", '    """Doc."""', "    return x", "", "    # end", "    pass"].join("\n"));
    expect(headOf({ startLine: 1, endLine: 6 }, python, LIMITS)).toEqual({ start: 1, end: 1 });
    // A short definition is its own head.
    expect(headOf({ startLine: 1, endLine: 3 }, python, LIMITS)).toEqual({ start: 1, end: 3 });
  });

  it("centres a large definition on the member that holds the goal's words", () => {
    const lines = [
      "class Big {",
      ...Array.from({ length: 40 }, (_, i) => `  m${i}() { return ${i}; } // filler filler filler filler`),
      "}",
    ];
    const source = sourceOf(`${lines.join("\n")}\n`);
    const big = { startLine: 1, endLine: lines.length };
    const members = Array.from({ length: 40 }, (_, i) => ({ startLine: i + 2, endLine: i + 2 }));
    const outline = new Outline([big, ...members], lines.length);
    const weight = (span: Span) => (span.start <= 30 && 30 <= span.end ? 1 : 0);
    expect(focusOf(big, outline, source, weight)).toBe(members[28]);
    // Nothing of the goal in any member, or a small definition: itself.
    expect(focusOf(big, outline, source, () => 0)).toBe(big);
    expect(focusOf(members[3] as Definition, outline, source, weight)).toBe(members[3]);
  });
});
