import { join } from "node:path";
import { pathToFileURL } from "node:url";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fileUri, pathHits, pathScore } from "./snippets.js";
import { queryTerms, termRegExp } from "./terms.js";

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
