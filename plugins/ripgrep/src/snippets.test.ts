import { join } from "node:path";
import { pathToFileURL } from "node:url";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseAnchors } from "./anchors.js";
import { RgJsonCollector } from "./collect.js";
import { buildSnippets, fileUri, pathHits, pathScore } from "./snippets.js";
import { queryTerms, termRegExp } from "./terms.js";

const ROOT = join("/", "srv", "repo");

describe("fileUri", () => {
  it("equals pathToFileURL for any path, escaping or not", () => {
    const segment = fc.string({
      unit: fc.oneof(fc.constantFrom(..."aZ09-._~!$&'()*+,;=:@[]^|%#?\"<>`{} \\\t"), fc.constantFrom("é", "日", "🚀")),
      minLength: 1,
      maxLength: 8,
    });
    const path = fc
      .array(segment, { minLength: 1, maxLength: 4 })
      .map((parts) => parts.join("/"))
      .filter((p) => !p.split("/").some((part) => part === "." || part === ".."));
    fc.assert(
      fc.property(fc.constantFrom(join("/", "srv", "repo"), join("/", "tmp", "a b")), path, (root, rel) => {
        expect(fileUri(root, rel, undefined)).toBe(pathToFileURL(join(root, rel)).href);
      }),
      { numRuns: 500 },
    );
  });

  it("percent-encodes the bytes of a name that is not UTF-8, one by one", () => {
    const bytes = Buffer.concat([Buffer.from("dir/n"), Buffer.from([0xff, 0x20]), Buffer.from("é.txt")]);
    expect(fileUri(join("/", "srv", "repo"), "ignored", bytes)).toBe("file:///srv/repo/dir/n%FF%20%C3%A9.txt");
  });
});

describe("pathHits", () => {
  const matchers = (text: string) => queryTerms(text).map(termRegExp);

  it("finds a term in the file name (1) or a directory (0.5)", () => {
    expect(pathHits("src/router/trie-router/node.ts", matchers("node router"))).toEqual([1, 0.5]);
    expect(pathHits("src/context.ts", matchers("context env"))).toEqual([1, 0]);
  });

  it("reads a generic file name's directory as the name: src/middleware/cors/index.ts is the cors module", () => {
    expect(pathHits("src/middleware/cors/index.ts", matchers("cors middleware"))).toEqual([1, 0.5]);
    expect(pathHits("sphinx/ext/autodoc/__init__.py", matchers("autodoc"))).toEqual([1]);
    expect(pathHits("index.ts", matchers("index"))).toEqual([1]);
  });

  it("scores the weighted share of the hits", () => {
    expect(pathScore([1, 0.5, 0], [2, 2, 0])).toBeCloseTo(0.75, 12);
    expect(pathScore([1], [0])).toBe(0);
  });
});

describe("buildSnippets", () => {
  const WORDS = ["retry", "backoff", "Retry", "retryPolicy", "exponential", "delay", "x", "function retry() {", "ok"];
  /** rg's messages for one file of random lines, match lines marked at random (buildSnippets must not care). */
  const file = fc.record({
    name: fc.constantFrom("src/retry.ts", "lib/backoff.js", "test/retry.test.ts", "docs/a.md", "data.json", "x.ts"),
    lines: fc.array(
      fc.record({ words: fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 4 }), match: fc.boolean() }),
      { minLength: 1, maxLength: 40 },
    ),
  });
  const collected = (files: { name: string; lines: { words: string[]; match: boolean }[] }[]) => {
    const collector = new RgJsonCollector({ maxLineBytes: 1000, maxMatches: 1e9 });
    files.forEach((f, index) => {
      const path = { text: `./${index}/${f.name}` };
      const message = (value: unknown) => collector.push(Buffer.from(JSON.stringify(value)));
      message({ type: "begin", data: { path } });
      let offset = 0;
      f.lines.forEach(({ words, match }, i) => {
        const text = `${words.join(" ")}\n`;
        const data = { path, lines: { text }, line_number: i + 1, absolute_offset: offset, submatches: [] };
        message({ type: match ? "match" : "context", data });
        offset += Buffer.byteLength(text);
      });
      message({ type: "end", data: { path, binary_offset: null, stats: {} } });
    });
    return collector.files;
  };

  it("returns the best maxCandidates of what it would rank with room for all, and counts the rest as omitted", () => {
    // Files whose best possible window cannot reach the kept set are not scored: this is the proof it changes nothing.
    fc.assert(
      fc.property(
        fc.array(file, { minLength: 1, maxLength: 12 }),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 3 }),
        fc.constantFrom([], ["retryPolicy"], ["0/src/retry.ts", "1"]),
        (specs, maxCandidates, perFileMaxSnippets, anchorList) => {
          const files = collected(specs);
          const terms = queryTerms("retry with exponential backoff");
          const anchors = parseAnchors(anchorList, [ROOT]);
          const options = { root: ROOT, contextLines: 2, maxSnippetLines: 8, perFileMaxSnippets, maxCandidates };
          const all = buildSnippets(files, terms, anchors, { ...options, maxCandidates: 1e6 });
          const some = buildSnippets(files, terms, anchors, options);
          expect(some.candidates).toEqual(all.candidates.slice(0, maxCandidates));
          // A view is scored as its window is: the same score for the window itself.
          const plain = (origins: typeof all.origins) =>
            origins.map(({ rescore, ...origin }, i) => ({
              ...origin,
              score: rescore(all.candidates[i]?.range ?? { start: 1, end: 1 }),
            }));
          expect(plain(some.origins)).toEqual(plain(all.origins).slice(0, maxCandidates));
          all.candidates.forEach((candidate, i) => {
            expect(all.origins[i]?.rescore(candidate.range ?? { start: 1, end: 1 })).toBe(candidate.relevance);
          });
          expect(some.omitted).toBe(all.omitted + Math.max(0, all.candidates.length - maxCandidates));
        },
      ),
      { numRuns: 300 },
    );
  });
});
