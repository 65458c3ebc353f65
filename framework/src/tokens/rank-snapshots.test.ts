/**
 * The rank tables' snapshots (framework/scripts/write-ranks.js, run by `npm run build`):
 * they hold exactly gpt-tokenizer's tables, counting loads them, and one that is missing,
 * damaged or written by another gpt-tokenizer is passed over for gpt-tokenizer's own.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { deserialize, serialize } from "node:v8";
import { afterAll, describe, expect, it } from "vitest";
import { type BpeEncodingName, encodingSource, exactCounter, RANK_SNAPSHOTS, rankSnapshot } from "./encoders.js";

const require = createRequire(import.meta.url);
const ENCODINGS: BpeEncodingName[] = ["o200k_base", "cl100k_base"];
const built = fileURLToPath(RANK_SNAPSHOTS);
const ownTable = (name: BpeEncodingName) =>
  (require(`gpt-tokenizer/bpeRanks/${name}`) as { default: unknown[] }).default;

const work = mkdtempSync(join(tmpdir(), "ocp-ranks-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));
/** A folder holding `bytes` as the o200k_base snapshot. */
function folderWith(bytes: Uint8Array): URL {
  const dir = mkdtempSync(join(work, "dir-"));
  writeFileSync(join(dir, "o200k_base.v8"), bytes);
  return pathToFileURL(`${dir}/`);
}

describe("rank snapshots", () => {
  it.each(ENCODINGS)("the build's %s snapshot holds exactly gpt-tokenizer's table", (name) => {
    const table = rankSnapshot(name);
    expect(table, `no usable ${name} snapshot in ${built}: \`npm run build\` writes it`).toBeDefined();
    expect(table).toEqual(ownTable(name));
  });

  it("counting loads the snapshot, and counts as gpt-tokenizer's own module does", () => {
    const count = exactCounter("cl100k_base");
    const own = require("gpt-tokenizer/encoding/cl100k_base") as { encode(text: string): number[] };
    for (const text of ["hello world", "  indented\n\tcode();", "supercalifragilistic", "x".repeat(300)]) {
      expect(count(text)).toBe(own.encode(text).length);
    }
    expect(encodingSource("cl100k_base")).toBe("snapshot");
  });

  it("passes over a snapshot that is missing, damaged, of another encoding or of another gpt-tokenizer", () => {
    const good = readFileSync(join(built, "o200k_base.v8"));
    const saved = deserialize(good) as Record<string, unknown>;
    expect(rankSnapshot("o200k_base", folderWith(good))).toHaveLength(ownTable("o200k_base").length);

    const empty = pathToFileURL(`${mkdtempSync(join(work, "empty-"))}/`);
    expect(rankSnapshot("o200k_base", empty)).toBeUndefined();
    expect(rankSnapshot("o200k_base", folderWith(good.subarray(0, good.length >> 1)))).toBeUndefined();
    expect(rankSnapshot("o200k_base", folderWith(Buffer.from("not a snapshot")))).toBeUndefined();
    // Written by a newer V8 (a package built on a newer Node): its header's format version is past ours.
    const newer = Buffer.from(good);
    expect(newer[0]).toBe(0xff);
    newer[1] = 0x7f;
    expect(rankSnapshot("o200k_base", folderWith(newer))).toBeUndefined();
    for (const changed of [
      { version: "0.0.1" },
      { encoding: "cl100k_base" },
      { format: 2 },
      { package: "js-tiktoken" },
      { ranks: "!" },
    ]) {
      expect(
        rankSnapshot("o200k_base", folderWith(serialize({ ...saved, ...changed }))),
        JSON.stringify(changed),
      ).toBeUndefined();
    }
  });
});
