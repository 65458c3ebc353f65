/**
 * The package's README is what npm shows: its provider is the repository's hello
 * example verbatim, its table names every subpath export and nothing else, and the
 * manifest ships it.
 */
import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const read = (path: string) => readFileSync(new URL(path, import.meta.url), "utf8");
const readme = read("../README.md");
const manifest = JSON.parse(read("../package.json")) as { files: string[]; exports: Record<string, unknown> };

describe("framework/README.md", () => {
  it("shows examples/hello-provider.ts verbatim", () => {
    const block = /## A provider in \d+ lines\n\n```ts\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(block).toBe(read("../../examples/hello-provider.ts"));
  });

  it("names every subpath export in its table, and only those", () => {
    const rows = [...readme.matchAll(/^\| `(ocp-provider[^`]*)` +\|/gm)].map((match) => match[1]);
    const subpaths = Object.keys(manifest.exports).map((key) =>
      key === "." ? "ocp-provider" : `ocp-provider${key.slice(1)}`,
    );
    expect(rows.sort()).toEqual(subpaths.sort());
  });

  it("is shipped: the manifest lists it and it exists", () => {
    expect(manifest.files).toContain("README.md");
    expect(existsSync(new URL("../README.md", import.meta.url))).toBe(true);
  });
});
