/**
 * resources/read on real files and real symlinks: only what was linked, only inside
 * the root, never through a link.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { ContextFrame } from "ocp-provider/wire";
import { afterAll, describe, expect, it } from "vitest";
import { ResourceRegistry, readInsideRoot } from "./resources.js";

const base = mkdtempSync(join(tmpdir(), "ocp-mcp-resources-"));
const root = join(base, "root");
const outside = join(base, "outside");
mkdirSync(join(root, "docs"), { recursive: true });
mkdirSync(outside);
writeFileSync(join(root, "docs", "guide.md"), "# Guide\n\nHello.\n");
writeFileSync(join(root, "notes.txt"), "plain notes\n");
writeFileSync(join(outside, "secret.txt"), "TOP SECRET\n");
symlinkSync(join(outside, "secret.txt"), join(root, "leak.txt"));
symlinkSync(join(root, "notes.txt"), join(root, "alias.txt"));
symlinkSync(outside, join(root, "elsewhere"));
afterAll(() => rmSync(base, { recursive: true, force: true }));

const frame = (overrides: Partial<ContextFrame>): ContextFrame => ({
  id: "f1",
  kind: "doc",
  title: "Guide",
  content: "# Guide\n",
  score: 1,
  token_cost: 3,
  provenance: [],
  relations: [],
  ...overrides,
});
const fileUri = (path: string) => pathToFileURL(path).href;

describe("readInsideRoot", () => {
  it("reads a regular file inside the root", async () => {
    expect(await readInsideRoot(root, join(root, "docs", "guide.md"))).toBe("# Guide\n\nHello.\n");
  });

  it("refuses a symlink as the last component, wherever it points", async () => {
    await expect(readInsideRoot(root, join(root, "leak.txt"))).rejects.toMatchObject({ code: "OCP_ERR_SYMLINK" });
    await expect(readInsideRoot(root, join(root, "alias.txt"))).rejects.toMatchObject({ code: "OCP_ERR_SYMLINK" });
  });

  it("refuses a file reached through a directory link that leaves the root, and files outside it", async () => {
    await expect(readInsideRoot(root, join(root, "elsewhere", "secret.txt"))).rejects.toMatchObject({
      code: "OCP_ERR_OUTSIDE_ROOT",
    });
    await expect(readInsideRoot(root, join(outside, "secret.txt"))).rejects.toMatchObject({
      code: "OCP_ERR_OUTSIDE_ROOT",
    });
  });

  it("refuses directories and files over the size bound", async () => {
    await expect(readInsideRoot(root, join(root, "docs"))).rejects.toMatchObject({ code: "OCP_ERR_NOT_A_FILE" });
    await expect(readInsideRoot(root, join(root, "docs", "guide.md"), 4)).rejects.toMatchObject({
      code: "OCP_ERR_FILE_TOO_LARGE",
    });
  });
});

describe("ResourceRegistry", () => {
  it("links each file or fact uri once, in frame order; no link for other schemes or files outside the root", () => {
    const registry = new ResourceRegistry(root);
    const links = registry.link([
      frame({ uri: fileUri(join(root, "docs", "guide.md")), citation_label: "docs/guide.md L1" }),
      frame({ id: "f2", uri: fileUri(join(root, "docs", "guide.md")) }),
      frame({ id: "f3", kind: "fact", title: "alice · works_at", uri: "fact://company/42", citation_label: "fact 42" }),
      frame({ id: "f4", uri: "https://example.com/page" }),
      frame({ id: "f5", uri: fileUri(join(outside, "secret.txt")) }),
      frame({ id: "f6" }),
    ]);
    expect(links).toEqual([
      {
        type: "resource_link",
        uri: fileUri(join(root, "docs", "guide.md")),
        name: "docs/guide.md",
        title: "Guide",
        description: "docs/guide.md L1",
        mimeType: "text/markdown",
      },
      {
        type: "resource_link",
        uri: "fact://company/42",
        name: "fact 42",
        title: "alice · works_at",
        description: "fact 42",
        mimeType: "text/plain",
      },
    ]);
    expect(registry.list("file:").map((entry) => entry.name)).toEqual(["docs/guide.md"]);
  });

  it("reads a linked file whole, a linked fact as served, and nothing it did not link", async () => {
    const registry = new ResourceRegistry(root);
    const guide = fileUri(join(root, "docs", "guide.md"));
    registry.link([
      frame({ uri: guide }),
      frame({
        id: "42@v1",
        kind: "fact",
        uri: "fact://company/42",
        content: "alice works at Acme.",
        valid_from: "2024-01-01T00:00:00Z",
      }),
    ]);
    expect(await registry.read(guide)).toEqual({ uri: guide, mimeType: "text/markdown", text: "# Guide\n\nHello.\n" });
    expect(await registry.read("fact://company/42")).toMatchObject({
      text: "alice works at Acme.",
      _meta: { "ocp/frame": { valid_from: "2024-01-01T00:00:00Z" } },
    });
    await expect(registry.read(fileUri(join(root, "notes.txt")))).rejects.toMatchObject({
      code: "OCP_ERR_MCP_RESOURCE",
      message: expect.stringMatching(/no answer of this bridge linked it/),
    });
  });

  it("keeps the whole fact when a smaller budget later served it cut", async () => {
    const registry = new ResourceRegistry(root);
    registry.link([frame({ id: "7@v1", uri: "fact://s/7", content: "line one\nline two\n" })]);
    registry.link([frame({ id: "7@v1", uri: "fact://s/7", content: "line one\n" })]);
    expect((await registry.read("fact://s/7")).text).toBe("line one\nline two\n");
    registry.link([frame({ id: "7@v2", uri: "fact://s/7", content: "corrected\n" })]);
    expect((await registry.read("fact://s/7")).text).toBe("corrected\n");
  });

  it("refuses a linked file that became a symlink since, and forgets the oldest links beyond its capacity", async () => {
    const registry = new ResourceRegistry(root, 2);
    registry.link([frame({ uri: fileUri(join(root, "leak.txt")) })]);
    await expect(registry.read(fileUri(join(root, "leak.txt")))).rejects.toThrow(/symbolic link/);
    registry.link([frame({ uri: "fact://s/1" }), frame({ id: "f2", uri: "fact://s/2" })]);
    await expect(registry.read(fileUri(join(root, "leak.txt")))).rejects.toThrow(/no answer of this bridge linked it/);
    expect(registry.list("fact:").map((entry) => entry.uri)).toEqual(["fact://s/1", "fact://s/2"]);
  });
});
