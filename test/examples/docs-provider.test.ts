/**
 * The docs example's passages: a long section is searched and served as passages cut
 * between its paragraphs, each under its section's heading and citing its exact lines,
 * so a long section ranked first no longer fills a small budget on its own.
 */
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import MiniSearch from "minisearch";
import { type Provider, sliceLines } from "ocp-provider";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

// The example reads OCP_DOCS when it is loaded: set it first, then load it.
const folder = realpathSync(mkdtempSync(join(tmpdir(), "ocp-docs-passages-")));
process.env.OCP_DOCS = folder;
type Example = typeof import("../../examples/docs-provider.js");
let example: Example;
beforeAll(async () => {
  example = await import("../../examples/docs-provider.js");
});
afterAll(async () => {
  await (example?.default as Provider | undefined)?.close();
  rmSync(folder, { recursive: true, force: true });
});

/** A Markdown section: a heading, then paragraphs, lists, tables and fenced code, some with blank lines inside. */
const sectionText = fc
  .array(
    fc.oneof(
      fc.lorem({ maxCount: 60, mode: "sentences" }).map((text) => `${text}\n`),
      fc
        .array(fc.lorem({ maxCount: 8 }), { minLength: 1, maxLength: 12 })
        .map((items) => items.map((item) => `- ${item}\n`).join("")),
      fc
        .array(fc.lorem({ maxCount: 5 }), { minLength: 1, maxLength: 30 })
        .map((rows) => rows.map((row) => `| ${row} |\n`).join("")),
      fc
        .array(fc.lorem({ maxCount: 6 }), { minLength: 1, maxLength: 10 })
        .map((code) => `\`\`\`ts\n${code.join("\n\n")}\n\`\`\`\n`),
      fc.constant("\n"),
    ),
    { minLength: 1, maxLength: 25 },
  )
  .map((blocks) => `## A heading\n\n${blocks.join("\n")}`);

describe("sectionPassages", () => {
  it("cuts a section into consecutive passages of its exact lines, none longer than asked but for a table or a single long line", () => {
    fc.assert(
      fc.property(
        sectionText,
        fc.integer({ min: 1, max: 50 }),
        fc.integer({ min: 40, max: 2000 }),
        (text, start, maxChars) => {
          const lines = text.split(/(?<=\n)/);
          const section = { file: "a.md", heading: "A heading", text, start, end: start + lines.length - 1 };
          const passages = example.sectionPassages(section, maxChars);
          expect(passages.length).toBeGreaterThan(0);
          if (text.length <= maxChars) expect(passages).toEqual([section]);
          let next = start;
          for (const passage of passages) {
            expect(passage).toMatchObject({ file: "a.md", heading: "A heading" });
            // Its text is exactly its lines of the section, and it starts where the last one ended,
            // but for whitespace-only lines between them (dropped: they say nothing).
            expect(passage.text).toBe(lines.slice(passage.start - start, passage.end - start + 1).join(""));
            expect(
              lines
                .slice(next - start, passage.start - start)
                .join("")
                .trim(),
            ).toBe("");
            expect(passage.start).toBeGreaterThanOrEqual(next);
            expect(passage.end).toBeGreaterThanOrEqual(passage.start);
            // The heading line goes with what follows it; a table (and its lead-in) may take up to TABLE_PASSAGES.
            const body = passage.text.split(/(?<=\n)/);
            const head =
              passage.start === start ? (body.findIndex((line) => !/^(#{1,6}\s.*)?\n$/.test(line)) + 1 || 1) - 1 : 0;
            const rest = body.slice(head).join("");
            const limit = /^\|/m.test(rest) ? maxChars * example.TABLE_PASSAGES : maxChars;
            if (body.length - head > 1) expect(rest.length).toBeLessThanOrEqual(limit);
            expect(passage.text.trim()).not.toBe("");
            next = passage.end + 1;
          }
          expect(
            lines
              .slice(next - start)
              .join("")
              .trim(),
          ).toBe("");
        },
      ),
    );
  });

  it("keeps a table whole with the paragraph that introduces it, and the heading with what follows", () => {
    const rows = Array.from({ length: 9 }, (_, i) => `| \`name${i}\` | what row ${i} says, at some length |\n`).join(
      "",
    );
    const table = `| name | meaning |\n| ---- | ------- |\n${rows}`;
    const lead = "What each name means, and how it is counted.\n";
    const text = `## Names\n\n${lead}\n${table}\n${"Afterwards, more words. ".repeat(8)}\n`;
    const section = { file: "a.md", heading: "Names", text, start: 1, end: text.split("\n").length - 1 };
    // The table alone is longer than a passage, shorter than TABLE_PASSAGES of them.
    expect(table.length).toBeGreaterThan(200);
    const passages = example.sectionPassages(section, 200);
    expect(passages[0]?.text).toBe(`## Names\n\n${lead}\n${table}\n`);
    expect(passages.slice(1).some((passage) => passage.text.includes("|"))).toBe(false);
    // Longer than TABLE_PASSAGES passages, a table is cut between its rows as before.
    const cut = example.sectionPassages(section, 100);
    expect(cut.filter((passage) => passage.text.includes("| name")).length).toBe(1);
    expect(cut.filter((passage) => passage.text.includes("|")).length).toBeGreaterThan(2);
  });

  it("keeps a fenced block whole when it fits, blank lines inside and all", () => {
    const code = "```ts\nconst a = 1;\n\nconst b = 2;\n```\n";
    const text = `## Example\n\n${"Some words here. ".repeat(8)}\n\n${code}\n${"More words. ".repeat(8)}\n`;
    const section = { file: "a.md", heading: "Example", text, start: 1, end: text.split("\n").length - 1 };
    const passages = example.sectionPassages(section, 160);
    expect(passages.length).toBeGreaterThan(1);
    expect(passages.filter((passage) => passage.text.includes(code))).toHaveLength(1);
  });
});

describe("the docs example under a small budget", () => {
  it("ships more than one long section cut to fit, each frame the exact lines of its section", async () => {
    // "Retry backoff" holds two of the goal's words over and over; "Limits" is the short answer.
    const long = Array.from(
      { length: 30 },
      (_, i) =>
        `A retry happens when a call fails (${i}); each retry backs off, and the backoff grows with every retry.\n`,
    ).join("\n");
    const file = join(folder, "guide.md");
    writeFileSync(
      file,
      `# Guide\n\n## Retry backoff\n\n${long}\n## Limits\n\nA retry backs off at most 30 s; the limit is five attempts.\n`,
    );
    const provider = example.default as Provider;
    const { frames } = await provider.query({
      goal: "retry backoff limits",
      kinds: [],
      anchors: [],
      max_tokens: 400,
      max_frames: 8,
    });
    const source = readFileSync(file, "utf8");
    // Served whole, "Retry backoff" (the best match before passages) was cut to fill the budget alone.
    expect(new Set(frames.map((frame) => frame.title))).toEqual(new Set(["Retry backoff", "Limits"]));
    for (const frame of frames) {
      expect(["Retry backoff", "Limits"]).toContain(frame.title);
      expect(fileURLToPath(frame.uri as string)).toBe(file);
      const [, first, last] = /^L(\d+)-(\d+)$/.exec(frame.provenance[0]?.range ?? "") ?? [];
      expect(frame.content).toBe(sliceLines(source, Number(first), Number(last)));
    }
  });
});

describe("the docs example's rankings kept per goal", () => {
  const ask = (goal: string, max_frames: number, max_tokens = 1024) =>
    (example.default as Provider).query({ goal, kinds: [], anchors: [], max_tokens, max_frames });

  it("answers a repeated goal as the first time, whatever was asked between and under any frame limit", async () => {
    const file = join(folder, "kept.md");
    const sections = Array.from(
      { length: 12 },
      (_, i) =>
        `## Part ${i}\n\nThe cache keeps rankings ${i}; a ranking is kept per goal ${"and budget ".repeat(i)}.\n`,
    );
    writeFileSync(file, `# Kept\n\n${sections.join("\n")}`);
    // The folder's watcher drops the index on the write; wait until the new file is served.
    for (let i = 0; i < 100 && !(await ask("rankings kept", 8)).frames.some((f) => f.title.startsWith("Part")); i++)
      await new Promise((resolve) => setTimeout(resolve, 50));
    const first = await ask("rankings kept", 8);
    const one = await ask("rankings kept", 1);
    await ask("cache budget", 3, 300);
    expect(first.frames.length).toBeGreaterThan(1);
    expect(one.frames).toHaveLength(1);
    expect(await ask("rankings kept", 8)).toEqual(first);
    expect(await ask("rankings kept", 1)).toEqual(one);
  });

  it("forgets them when a file changes: the new text is served, not a kept ranking of the old", async () => {
    const file = join(folder, "changing.md");
    writeFileSync(file, "# Changing\n\n## Weather\n\nThe zeppelin forecast says sunny.\n");
    const served = async (word: string) =>
      (await ask("zeppelin forecast", 8)).frames.some((f) => f.content.includes(word));
    for (let i = 0; i < 100 && !(await served("sunny")); i++) await new Promise((r) => setTimeout(r, 50));
    expect(await served("sunny")).toBe(true);
    writeFileSync(file, "# Changing\n\n## Weather\n\nThe zeppelin forecast says rainy.\n");
    for (let i = 0; i < 100 && !(await served("rainy")); i++) await new Promise((r) => setTimeout(r, 50));
    expect(await served("rainy")).toBe(true);
    expect(await served("sunny")).toBe(false);
  });
});

describe("the docs example's work per goal", () => {
  /** Words a goal is made of: the docs' own, stop words, identifiers, numbers, punctuation and other scripts. */
  const word = fc.oneof(
    fc.constantFrom("plugin", "plugins", "frames", "budget", "token", "costs", "counted", "how", "the", "does", "a"),
    fc.constantFrom("runConformance", "maxTokens", "HTTPServer", "x", "7", "naïve", "日本語", "émigré"),
    fc.stringMatching(/^[a-z]{1,12}$/),
    fc.string({ unit: "grapheme", maxLength: 6 }),
  );
  const separator = fc.constantFrom(" ", "  ", ", ", ". ", "\n", "\t", "-", "/", "?", "\u00a0", "—");
  /** A goal of up to `maxWords` words; with `size: "max"`, lengths across the whole range (not only short ones). */
  const goal = (maxWords: number, size: "small" | "max" = "small") =>
    fc
      .array(fc.tuple(word, separator), { minLength: 1, maxLength: maxWords, size })
      .map((pairs) => pairs.map(([w, s]) => w + s).join(""));

  /** What minisearch searches for a whole text: its tokenizer's words, each through the example's `indexTerms`. */
  const tokenize = MiniSearch.getDefault("tokenize") as (text: string) => string[];
  function searchedWhole(text: string): Map<string, number> {
    const counts = new Map<string, number>();
    for (const token of tokenize(text)) {
      const found = example.indexTerms(token);
      for (const term of typeof found === "string" ? [found] : (found ?? []))
        if (term) counts.set(term, (counts.get(term) ?? 0) + 1);
    }
    return counts;
  }

  it("searches a goal of ordinary length for exactly what minisearch would, each term once with its count", () => {
    fc.assert(
      fc.property(goal(40), (text) => {
        const whole = searchedWhole(text);
        fc.pre(whole.size <= example.MAX_GOAL_TERMS);
        const { terms, counts } = example.goalTerms(text);
        expect(new Map(terms.map((term, i) => [term, counts[i]]))).toEqual(whole);
        // First written first: the order minisearch met them in.
        expect(terms).toEqual([...whole.keys()]);
      }),
      { numRuns: 300 },
    );
  });

  it("keeps at most MAX_GOAL_TERMS distinct terms and reads no word past MAX_GOAL_WORDS, however long the goal", () => {
    fc.assert(
      fc.property(goal(3 * example.MAX_GOAL_WORDS, "max"), fc.string({ maxLength: 200 }), (text, tail) => {
        const { terms, counts } = example.goalTerms(text);
        expect(terms.length).toBeLessThanOrEqual(example.MAX_GOAL_TERMS);
        expect(new Set(terms).size).toBe(terms.length);
        expect(counts.every((count) => count >= 1)).toBe(true);
        const words = [...text.matchAll(/[^\n\r\p{Z}\p{P}]+/gu)];
        if (words.length > example.MAX_GOAL_WORDS) {
          // Whatever follows the last word read changes nothing.
          const cut = words[example.MAX_GOAL_WORDS]?.index as number;
          expect(example.goalTerms(`${text.slice(0, cut)} ${tail}${text.slice(cut)}`)).toEqual({ terms, counts });
        }
      }),
      { numRuns: 50 },
    );
  });

  it("asks its index about at most MAX_GOAL_TERMS terms per query, however long the goal", async () => {
    writeFileSync(
      join(folder, "bounded.md"),
      "# Bounded\n\n## Frames\n\nPlugins return frames; token costs are counted.\n\n## Budget\n\nA budget bounds the frames.\n",
    );
    const provider = example.default as Provider;
    const ask = (goal: string) => provider.query({ goal, kinds: [], anchors: [], max_tokens: 1024, max_frames: 8 });
    for (let i = 0; i < 100 && !(await ask("plugins frames budget")).frames.some((f) => f.title === "Budget"); i++)
      await new Promise((resolve) => setTimeout(resolve, 50));
    // Each call is one term looked up and merged into every passage holding it.
    const lookups = vi.spyOn(
      MiniSearch.prototype as unknown as { executeQuerySpec: (...args: unknown[]) => unknown },
      "executeQuerySpec",
    );
    try {
      await fc.assert(
        fc.asyncProperty(goal(4 * example.MAX_GOAL_WORDS, "max"), fc.nat(), async (text, salt) => {
          lookups.mockClear();
          // Salted, so that no ranking kept from an earlier run answers it.
          await ask(`${text} ${salt}`);
          expect(lookups.mock.calls.length).toBeLessThanOrEqual(example.MAX_GOAL_TERMS);
        }),
        { numRuns: 30 },
      );
      // The goal that held a provider for a minute: a megabyte of the docs' own words.
      lookups.mockClear();
      const { frames } = await ask(
        "plugins return frames, token costs are counted; a budget bounds them. ".repeat(14_000),
      );
      expect(lookups.mock.calls.length).toBeLessThanOrEqual(example.MAX_GOAL_TERMS);
      expect(frames.map((frame) => frame.title)).toContain("Frames");
    } finally {
      lookups.mockRestore();
    }
  });
});
