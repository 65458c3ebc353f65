import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { gitIn, writeUnreadableBlob } from "../../../test/test-support/git-fixture.js";
import { type BatchReply, BatchReplyParser, BlobReader } from "./git.js";
import { writeTree } from "./trees.js";

let repo: string;
beforeAll(() => {
  repo = mkdtempSync(join(tmpdir(), "ocp-eval-git-"));
  gitIn(repo, ["init", "-q", "-b", "main"]);
});
afterAll(() => {
  rmSync(repo, { recursive: true, force: true });
});
afterEach(() => {
  vi.restoreAllMocks();
});

/** Stores `content` as a blob of the repository and returns its id. */
function storeBlob(content: Buffer): string {
  return execFileSync("git", ["-C", repo, "hash-object", "-w", "--stdin"], { input: content }).toString().trim();
}

/** What `git cat-file --batch` writes for these objects (undefined: a missing name). */
function batchOutput(objects: readonly (Buffer | undefined)[], withContent: boolean): Buffer {
  return Buffer.concat(
    objects.map((content, index) => {
      if (content === undefined) return Buffer.from(`name-${index} missing\n`);
      const header = Buffer.from(`${index.toString(16).padStart(40, "0")} blob ${content.length}\n`);
      return withContent ? Buffer.concat([header, content, Buffer.from("\n")]) : header;
    }),
  );
}

describe("BatchReplyParser", () => {
  const objects = fc.array(fc.option(fc.uint8Array({ maxLength: 300 }).map(Buffer.from), { nil: undefined }), {
    maxLength: 8,
  });
  const cuts = fc.array(fc.nat(), { maxLength: 40 });

  it("property: however the output is cut into chunks, every object comes back whole, in order", () => {
    fc.assert(
      fc.property(objects, cuts, fc.boolean(), (list, cutAt, withContent) => {
        const output = batchOutput(list, withContent);
        const points = [...new Set(cutAt.map((cut) => cut % (output.length + 1)))].sort((a, b) => a - b);
        const parser = new BatchReplyParser(withContent);
        const replies: BatchReply[] = [];
        let from = 0;
        for (const point of [...points, output.length]) {
          replies.push(...parser.push(output.subarray(from, point)));
          from = point;
        }
        expect(replies).toHaveLength(list.length);
        replies.forEach((reply, index) => {
          const content = list[index];
          if (content === undefined) {
            expect(reply).toBeUndefined();
            return;
          }
          expect(reply?.info).toEqual({
            oid: index.toString(16).padStart(40, "0"),
            type: "blob",
            size: content.length,
          });
          expect(reply?.content).toEqual(withContent ? content : undefined);
        });
      }),
    );
  });
});

/** Counts the bytes copied by the copying primitives of Buffer while `action` runs. */
async function bytesCopied(action: () => Promise<void>): Promise<number> {
  let copied = 0;
  const concat = Buffer.concat;
  const from = Buffer.from;
  const copy = Buffer.prototype.copy;
  vi.spyOn(Buffer, "concat").mockImplementation((list, length) => {
    const result = concat(list, length);
    copied += result.length;
    return result;
  });
  vi.spyOn(Buffer, "from").mockImplementation(((value: unknown, ...rest: unknown[]) => {
    const result = (from as (...args: unknown[]) => Buffer)(value, ...rest);
    if (value instanceof Uint8Array) copied += result.length;
    return result;
  }) as typeof Buffer.from);
  vi.spyOn(Buffer.prototype, "copy").mockImplementation(function (this: Buffer, ...args) {
    const count = copy.apply(this, args);
    copied += count;
    return count;
  });
  await action();
  vi.restoreAllMocks();
  return copied;
}

describe("BlobReader", () => {
  it("reads a blob of 8 MiB copying each byte about once, not once per chunk that arrives after it", async () => {
    // Not a timed test: it counts the bytes copied. Chunks from the pipe are at most 64 KiB, so
    // re-joining the whole buffer per chunk copies ~64 times the blob's size; a linear read ~1×.
    const size = 8 * 1024 * 1024;
    const content = Buffer.alloc(size);
    for (let i = 0; i < size; i++) content[i] = (i * 7919) % 251;
    const oid = storeBlob(content);
    const reader = new BlobReader(repo);
    let read: Buffer | undefined;
    try {
      const copied = await bytesCopied(async () => {
        read = (await reader.read(oid))?.content;
      });
      expect(read?.equals(content)).toBe(true);
      expect(copied).toBeLessThanOrEqual(2 * size);
    } finally {
      await reader.close();
    }
  });

  it("asks the size first and never reads a blob larger than the read allows", async () => {
    const oid = writeUnreadableBlob(repo, 2 * 1024 * 1024);
    const reader = new BlobReader(repo);
    try {
      // git cannot read this object's content: had the reader asked for it, git cat-file would have failed.
      const blob = await reader.read(oid, 1024 * 1024);
      expect(blob).toEqual({ oid, type: "blob", size: 2 * 1024 * 1024 });
      // The reader still works for what fits, and a missing name is undefined.
      const small = storeBlob(Buffer.from("small\n"));
      expect((await reader.read(small, 1024))?.content?.toString()).toBe("small\n");
      expect(await reader.read("0".repeat(40), 1024)).toBeUndefined();
      expect(await reader.read("main:no/such/file")).toBeUndefined();
    } finally {
      await reader.close();
    }
  });
});

describe("writeTree", () => {
  it("leaves out a file over 16 MiB by the size git lists, unread, and writes the rest", async () => {
    // git cannot read this object's content: had writeTree asked for it, git cat-file would have failed.
    const big = writeUnreadableBlob(repo, 16 * 1024 * 1024 + 1);
    const small = storeBlob(Buffer.from("export const small = 1;\n"));
    gitIn(repo, ["update-index", "--add", "--cacheinfo", `100644,${big},data/huge.bin`]);
    gitIn(repo, ["update-index", "--add", "--cacheinfo", `100644,${small},src/small.ts`]);
    gitIn(repo, ["commit", "-q", "-m", "A tree with one file too large to write"], 0);
    const commit = gitIn(repo, ["rev-parse", "HEAD"]);
    const out = mkdtempSync(join(tmpdir(), "ocp-eval-tree-"));
    const reader = new BlobReader(repo);
    try {
      expect(await writeTree(repo, commit, join(out, "tree"), reader)).toBe(1);
      expect(readFileSync(join(out, "tree", "src/small.ts"), "utf8")).toBe("export const small = 1;\n");
      expect(existsSync(join(out, "tree", "data/huge.bin"))).toBe(false);
    } finally {
      await reader.close();
      rmSync(out, { recursive: true, force: true });
    }
  });
});
