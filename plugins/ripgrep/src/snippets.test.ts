import { join } from "node:path";
import { pathToFileURL } from "node:url";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fileUri } from "./snippets.js";

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
