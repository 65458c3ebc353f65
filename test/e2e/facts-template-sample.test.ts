/**
 * The facts template's sample store (templates/facts/src/sample-data.ts), built as a
 * generated project builds it on first use, then written to with `ocp-facts` as a person
 * tries the template out: a new owner of the payments API must leave one current owner,
 * not two at score 1.00 — `owner` is declared functional in the sample.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { facts } from "ocp-plugin-facts";
import { defineProvider } from "ocp-provider";
import { afterAll, describe, expect, it, vi } from "vitest";
import { FUNCTIONAL, sampleStore } from "../../templates/facts/src/sample-data.js";

const OCP_FACTS = fileURLToPath(new URL("../../plugins/facts/bin/ocp-facts.js", import.meta.url));
const run = promisify(execFile);
const tmp = mkdtempSync(join(tmpdir(), "ocp-facts-sample-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

async function currentOwners(db: string): Promise<{ content: string; score: number }[]> {
  const provider = defineProvider({
    name: "facts-sample",
    version: "0.1.0",
    dataFlow: { reads: true, writes: false, egress: false },
    plugins: [facts({ db })],
  });
  try {
    const { frames } = await provider.query({
      goal: "who owns the payments API?",
      kinds: [],
      anchors: [],
      max_tokens: 1000,
      max_frames: 8,
    });
    return frames.filter((frame) => frame.title === "payments-api · owner");
  } finally {
    await provider.close();
  }
}

describe("the facts template's sample store", () => {
  it("is built once, whole, in place, and says on stderr what it made", async () => {
    const dir = join(tmp, "built");
    mkdirSync(dir);
    const db = join(dir, "facts.db");
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    try {
      expect(await sampleStore(db)).toBe(db);
      expect(stderr.mock.calls.map(([text]) => String(text)).join("")).toMatch(
        /^sample: imported 4 facts from .*sample-facts\.jsonl into .*facts\.db \(functional: owner\)\n$/,
      );
    } finally {
      stderr.mockRestore();
    }
    // Nothing of the build left beside it; a second call finds it and builds nothing.
    expect(readdirSync(dir)).toEqual(["facts.db"]);
    expect(await sampleStore(db)).toBe(db);
    expect((await currentOwners(db)).map((frame) => frame.content)).toEqual([
      "The payments API is owned by the Platform team.",
    ]);
  });

  it("declares owner functional: a new owner asserted with ocp-facts ends the previous one", async () => {
    const dir = join(tmp, "tried");
    mkdirSync(dir);
    const db = await sampleStore(join(dir, "facts.db"));
    expect(FUNCTIONAL).toContain("owner");
    const { stdout } = await run(process.execPath, [OCP_FACTS, "functional", "--db", db]);
    expect(stdout.split("\n")).toContain("owner");
    await run(process.execPath, [
      OCP_FACTS,
      "assert",
      "--db",
      db,
      "--subject",
      "payments-api",
      "--predicate",
      "owner",
      "--statement",
      "The payments API is owned by the Core team.",
      "--valid-from",
      "2025-09-01T00:00:00Z",
    ]);
    expect(existsSync(db)).toBe(true);
    // One owner now, not the Platform team beside the Core team at the same score.
    expect((await currentOwners(db)).map((frame) => frame.content)).toEqual([
      "The payments API is owned by the Core team.",
    ]);
  });
});
