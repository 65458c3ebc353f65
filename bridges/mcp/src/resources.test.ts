/**
 * resources/read on real files and real symlinks: only what was linked, only inside
 * the root, never through a link; and facts asked of a real provider again at read time.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { ContextFrame } from "ocp-provider/wire";
import { afterAll, describe, expect, it } from "vitest";
import { type AskProvider, ResourceRegistry, readInsideRoot, type SessionResources } from "./resources.js";
import { type MemoryFact, memoryFacts } from "./test-support/providers.js";

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

/** A registry whose facts come from a real provider over `facts`, asked as the bridge asks it. */
function registryOver(facts: MemoryFact[] = [], options: { capacity?: number; maxBytes?: number } = {}) {
  const asked: Record<string, unknown>[] = [];
  const provider = memoryFacts(facts, asked);
  const ask: AskProvider = (question, signal) =>
    provider.query({ ...question, max_tokens: 32_000, max_frames: 64 }, { signal });
  return { registry: new ResourceRegistry({ root, ask, ...options }), asked };
}

describe("ResourceRegistry", () => {
  it("links each file or fact uri once, in frame order; no link for other schemes or files outside the root", () => {
    const { registry } = registryOver();
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

  it("reads a linked file whole from disk as it is now, and nothing it did not link", async () => {
    const { registry } = registryOver();
    const notes = fileUri(join(root, "notes.txt"));
    registry.link([frame({ uri: notes })]);
    expect(await registry.read(notes)).toEqual({ uri: notes, mimeType: "text/plain", text: "plain notes\n" });
    writeFileSync(join(root, "notes.txt"), "notes, rewritten\n");
    expect((await registry.read(notes)).text).toBe("notes, rewritten\n");
    await expect(registry.read(fileUri(join(root, "docs", "guide.md")))).rejects.toMatchObject({
      code: "OCP_ERR_MCP_RESOURCE",
      message: expect.stringMatching(/no answer of this bridge linked it/),
    });
  });

  it("reads a fact as the provider serves it now: corrected reads corrected, gone is refused and forgotten", async () => {
    const facts: MemoryFact[] = [{ id: 7, statement: "alice works at Acme." }];
    const { registry } = registryOver(facts);
    registry.link([frame({ id: "7@v1", kind: "fact", uri: "fact://mem/7", content: "alice works at Acme." })]);
    expect(await registry.read("fact://mem/7")).toMatchObject({
      text: "alice works at Acme.",
      _meta: { "ocp/frame": { citation_label: "fact 7" } },
    });
    (facts[0] as MemoryFact).statement = "alice works at Globex.";
    expect((await registry.read("fact://mem/7")).text).toBe("alice works at Globex.");
    facts.length = 0;
    await expect(registry.read("fact://mem/7")).rejects.toMatchObject({
      code: "OCP_ERR_MCP_RESOURCE",
      message: expect.stringMatching(/the provider no longer serves it/),
    });
    expect(registry.list("fact:")).toEqual([]);
    await expect(registry.read("fact://mem/7")).rejects.toThrow(/no answer of this bridge linked it/);
  });

  it("asks for a fact again by its own words, kind, and the time fields of the question that linked it", async () => {
    const facts: MemoryFact[] = [{ id: 3, statement: "bob lives in Lyon.", validFrom: "2030-01-01" }];
    const { registry, asked } = registryOver(facts);
    const linked = frame({ id: "3@v1", kind: "fact", uri: "fact://mem/3", content: "bob lives in Lyon." });
    registry.link([linked], { as_of: "2031-06-01T00:00:00Z", as_known_at: "2031-07-01" });
    expect((await registry.read("fact://mem/3")).text).toBe("bob lives in Lyon.");
    expect(asked.at(-1)).toMatchObject({
      query_text: "bob lives in Lyon.",
      kinds: ["fact"],
      as_of: "2031-06-01T00:00:00Z",
      as_known_at: "2031-07-01",
    });
    // Linked by a question about now, the same fact is not valid yet: not served.
    registry.link([linked]);
    await expect(registry.read("fact://mem/3")).rejects.toThrow(/no longer serves it/);
  });

  it("says why when the provider cannot be asked", async () => {
    const registry = new ResourceRegistry({
      root,
      ask: () => Promise.reject(new Error("facts did not answer within 300 ms")),
    });
    registry.link([frame({ kind: "fact", uri: "fact://mem/1" })]);
    await expect(registry.read("fact://mem/1")).rejects.toThrow(
      /cannot read fact:\/\/mem\/1: the provider could not be asked for it again: facts did not answer within 300 ms/,
    );
    // Not forgotten: the fact may well still be there.
    expect(registry.list("fact:").map((entry) => entry.uri)).toEqual(["fact://mem/1"]);
  });

  it("refuses a linked file that became a symlink since, and forgets the oldest links beyond its capacity", async () => {
    const { registry } = registryOver([], { capacity: 2 });
    registry.link([frame({ uri: fileUri(join(root, "leak.txt")) })]);
    await expect(registry.read(fileUri(join(root, "leak.txt")))).rejects.toThrow(/symbolic link/);
    registry.link([frame({ uri: "fact://s/1" }), frame({ id: "f2", uri: "fact://s/2" })]);
    await expect(registry.read(fileUri(join(root, "leak.txt")))).rejects.toThrow(/no answer of this bridge linked it/);
    expect(registry.list("fact:").map((entry) => entry.uri)).toEqual(["fact://s/1", "fact://s/2"]);
  });

  it("lists to each session only what it linked, in its own bound, and drops what the registry forgot", async () => {
    const facts: MemoryFact[] = [1, 2, 3, 4].map((id) => ({ id, statement: "one" }));
    const { registry } = registryOver(facts, { capacity: 3 });
    const [first, second] = [registry.session(2), registry.session()];
    const fact = (id: number) => frame({ id: `${id}`, kind: "fact", uri: `fact://mem/${id}`, content: "one" });
    first.link([fact(1), fact(2)]);
    second.link([fact(3)]);
    first.link([fact(4)]);
    const uris = (session: SessionResources) => session.list("fact:").map((entry) => entry.uri);
    expect(uris(first)).toEqual(["fact://mem/2", "fact://mem/4"]);
    expect(uris(second)).toEqual(["fact://mem/3"]);
    // The registry keeps 3: the first link went, and reads of it are refused in every session.
    await expect(second.read("fact://mem/1")).rejects.toThrow(/no answer of this bridge linked it/);
    expect((await second.read("fact://mem/4")).text).toBe("one");
    // Read and no longer served: forgotten, so no session lists it.
    first.link([fact(1)]);
    facts.length = 0;
    await expect(second.read("fact://mem/1")).rejects.toThrow(/no longer serves it/);
    expect(uris(first)).toEqual(["fact://mem/4"]);
  });

  it("keeps what it needs to ask again within its byte bound, and links no fact it could not keep", () => {
    const { registry } = registryOver([], { maxBytes: 4000 });
    const fact = (id: number, size: number) =>
      frame({ id: `${id}`, kind: "fact", uri: `fact://s/${id}`, content: "w ".repeat(size / 2) });
    for (let id = 1; id <= 8; id++) registry.link([fact(id, 600)]);
    const kept = registry.list("fact:").map((entry) => entry.uri);
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.length).toBeLessThan(8);
    expect(kept.at(-1)).toBe("fact://s/8");
    expect(registry.link([fact(9, 5000)])).toEqual([]);
    // A large question counts too: its time fields are kept with each fact it linked.
    expect(registry.link([fact(10, 10)], { as_known_at: "x".repeat(5000) })).toEqual([]);
  });
});
