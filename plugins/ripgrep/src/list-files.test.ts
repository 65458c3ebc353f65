import { lstatSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { listFiles } from "./list-files.js";
import { createFixtureTree } from "./test-support/fixture-tree.js";

const tree = createFixtureTree();
afterAll(() => tree.remove());

describe("listFiles", () => {
  it("lists what the plugin searches: ignore files respected, hidden and oversized skipped, symlinks not followed", async () => {
    expect(await listFiles({ root: tree.root })).toEqual([
      "assets/image.bin",
      "dist/app.min.js",
      "docs/unicode.md",
      "no-newline.ts",
      "pre.sh",
      "src/config.ts",
      "src/crlf.ts",
      "src/latin1.txt",
      "src/packer.ts",
    ]);
  });

  it("every listed path is a regular file inside the root", async () => {
    const root = realpathSync(tree.root);
    for (const path of await listFiles({ root: tree.root, hidden: true, maxFileSizeBytes: 10_000_000 })) {
      const full = join(root, path);
      expect(lstatSync(full).isFile()).toBe(true);
      expect(realpathSync(full).startsWith(`${root}/`)).toBe(true);
    }
  });

  it("includes hidden files when asked (never .git) and large files under a larger cap", async () => {
    const files = await listFiles({ root: tree.root, hidden: true, maxFileSizeBytes: 10_000_000 });
    expect(files).toEqual(expect.arrayContaining([".gitignore", ".ignore", ".hidden/settings.ts", "data/huge.txt"]));
    expect(files.some((file) => file.startsWith("ignored/") || file.endsWith(".log"))).toBe(false);
    expect(files.some((file) => file.startsWith(".git/"))).toBe(false);
    expect(files.some((file) => file.startsWith("link-to"))).toBe(false);
  });

  it("rejects a root that does not exist, and stops when aborted", async () => {
    await expect(listFiles({ root: join(tree.base, "missing") })).rejects.toThrow(/does not exist/);
    const controller = new AbortController();
    controller.abort(new Error("stop"));
    await expect(listFiles({ root: tree.root, signal: controller.signal })).rejects.toThrow("stop");
  });
});
