import { pathToFileURL } from "node:url";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { assertReferenceValid } from "../../../test/test-support/reference-schema.js";
import { displayLine, terminalLines, terminalText } from "./display-text.js";
import { silentLogger } from "./logger.js";
import { type Candidate, definePlugin } from "./plugin.js";
import { defineProvider } from "./provider.js";

/** Every character the cleaning is about, spelled out independently of its regex. */
function isUnsafe(char: string): boolean {
  const code = char.codePointAt(0) as number;
  return (
    code <= 0x1f ||
    (code >= 0x7f && code <= 0x9f) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x061c ||
    code === 0x200e ||
    code === 0x200f ||
    (code >= 0x202a && code <= 0x202e) ||
    (code >= 0x2066 && code <= 0x2069)
  );
}
const hasUnsafe = (text: string) => [...text].some(isUnsafe);
/** What a reader sees, give or take spacing: the characters that are neither unsafe nor whitespace. */
const visible = (text: string) => [...text].filter((char) => !isUnsafe(char) && !/\s/u.test(char)).join("");

const NASTY = [
  "\n",
  "\r\n",
  "\t",
  "\u0000",
  "\u001b[2J",
  "\u001b]0;title\u0007",
  "\u007f",
  "\u0085",
  "\u009b31m",
  "\u2028",
  "\u2029",
  "\u061c",
  "\u200e",
  "\u200f",
  "\u202a",
  "\u202b",
  "\u202c",
  "\u202d",
  "\u202e",
  "\u2066",
  "\u2067",
  "\u2068",
  "\u2069",
];
/** Any text, with the characters that matter mixed in often. */
const anyText = fc
  .array(fc.oneof(fc.string({ unit: "binary", maxLength: 6 }), fc.constantFrom(...NASTY), fc.constant(" ")), {
    maxLength: 12,
  })
  .map((parts) => parts.join(""));

describe("terminalText and terminalLines", () => {
  it("put U+FFFD in place of each unsafe character but tab (and, for lines, the line break), all else kept", () => {
    fc.assert(
      fc.property(anyText, (text) => {
        const shown = terminalText(text);
        expect(
          [...shown].some((char) => char !== "\t" && isUnsafe(char)),
          JSON.stringify(shown),
        ).toBe(false);
        // Character for character: a reader sees where something was, and everything else as it was.
        const expected = [...text].map((char) => (char !== "\t" && isUnsafe(char) ? "\ufffd" : char)).join("");
        expect(shown).toBe(expected);
        expect(terminalLines(text)).toBe(text.split("\n").map(terminalText).join("\n"));
      }),
      { numRuns: 2000 },
    );
  });
});

describe("displayLine", () => {
  it("leaves no control, separator or bidi-control character in whatever it is given", () => {
    fc.assert(
      fc.property(anyText, (text) => {
        const line = displayLine(text);
        expect(hasUnsafe(line), JSON.stringify(line)).toBe(false);
        expect(visible(line)).toBe(visible(text)); // nothing a reader could see is lost
      }),
      { numRuns: 2000 },
    );
  });

  it("returns a clean string unchanged", () => {
    const clean = fc.string({ unit: "binary", maxLength: 40 }).filter((text) => !hasUnsafe(text));
    fc.assert(
      fc.property(clean, (text) => {
        expect(displayLine(text)).toBe(text);
      }),
      { numRuns: 2000 },
    );
  });

  it("makes one line of the names that break terminals and reading order", () => {
    expect(displayLine("a\nb.ts L1")).toBe("a b.ts L1");
    expect(displayLine("\u001b[2Jclear.ts")).toBe("[2Jclear.ts");
    expect(displayLine("report\u202egpj.exe")).toBe("report gpj.exe");
    expect(displayLine(" \u2066 x \u2069 ")).toBe("x");
  });
});

describe("frame titles and citation labels", () => {
  it("are one plain line and never empty, for every source a plugin can give them", async () => {
    // Titles, labels, paths and uris the plugin sets itself, and those the framework derives
    // from a path, a file uri or the content.
    const candidate = fc.record(
      {
        content: anyText.map((text) => `${text}\nbody`),
        title: anyText,
        citationLabel: anyText,
        path: anyText.filter((text) => text.length > 0),
        uri: anyText.map((name) => pathToFileURL(`/repo/${name.replaceAll("/", "_") || "f"}`).href),
        range: fc.constant({ start: 3, end: 4 }),
        relations: fc.constant(undefined),
      },
      { requiredKeys: ["content"] },
    );
    await fc.assert(
      fc.asyncProperty(fc.array(candidate, { minLength: 1, maxLength: 5 }), anyText, async (candidates, name) => {
        const provider = defineProvider({
          name: "text",
          version: "1.0.0",
          dataFlow: { reads: true, writes: false, egress: false },
          logger: silentLogger,
          root: "/repo",
          plugins: [
            definePlugin({
              name: "text",
              kinds: ["snippet"],
              search: () =>
                candidates.map(
                  (c, i): Candidate => ({
                    ...c,
                    // Lines of their own: frames of one uri never overlap, and every candidate must ship.
                    range: c.range && { start: c.range.start + 2 * i, end: c.range.end + 2 * i },
                    id: `c${i}`,
                    relevance: 0.5,
                    relations: [{ rel: "calls", targetUri: "file:///repo/x", displayName: name }],
                  }),
                ),
            }),
          ],
        });
        const result = await provider.query({ goal: "g", kinds: [], anchors: [], max_frames: 10, max_tokens: 10_000 });
        assertReferenceValid({ type: "frames", result });
        expect(result.frames).toHaveLength(candidates.length);
        for (const frame of result.frames) {
          for (const text of [frame.title, frame.citation_label ?? "", frame.relations?.[0]?.display_name ?? ""]) {
            expect(hasUnsafe(text), JSON.stringify(text)).toBe(false);
          }
          expect(frame.title.trim()).not.toBe("");
          expect(frame.citation_label?.trim()).not.toBe("");
        }
      }),
      { numRuns: 200 },
    );
  });

  it("keep a clean title and label exactly as the plugin wrote them", async () => {
    const provider = defineProvider({
      name: "text",
      version: "1.0.0",
      dataFlow: { reads: true, writes: false, egress: false },
      logger: silentLogger,
      plugins: [
        definePlugin({
          name: "text",
          kinds: ["snippet"],
          search: () => [
            { content: "x", relevance: 1, title: "  Retry — «policy» 🙂 ", citationLabel: "retry.md L1-2" },
          ],
        }),
      ],
    });
    const result = await provider.query({ goal: "g", kinds: [], anchors: [], max_frames: 1, max_tokens: 100 });
    expect(result.frames[0]?.title).toBe("  Retry — «policy» 🙂 ");
    expect(result.frames[0]?.citation_label).toBe("retry.md L1-2");
  });
});
