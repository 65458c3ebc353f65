/**
 * Same input, same frames: a tree large enough that rg searches it on several threads,
 * whose matches pass the match cap, asked the same query again and again. rg finishes
 * files in whatever order its threads get to them, so anything that depends on that
 * order (which files were in hand when the cap was reached, ties) shows up as a change.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Provider, silentLogger } from "ocp-provider";
import { afterAll, describe, expect, it } from "vitest";
import { ripgrepProvider } from "./provider.js";

const root = mkdtempSync(join(tmpdir(), "ocp-ripgrep-determinism-"));
const providers: Provider[] = [];
afterAll(async () => {
  await Promise.all(providers.map((provider) => provider.close()));
  rmSync(root, { recursive: true, force: true });
});

/** 3,000 files in 30 directories, each with a few lines naming the query's words in varied mixes. */
function makeTree(): void {
  const words = ["retry", "upload", "request", "handler", "timeout", "buffer"];
  for (let d = 0; d < 30; d++) {
    const dir = join(root, `pkg${String(d).padStart(2, "0")}`, "src");
    mkdirSync(dir, { recursive: true });
    for (let f = 0; f < 100; f++) {
      const n = d * 100 + f;
      const lines: string[] = [];
      for (let l = 0; l < 12; l++) {
        const word = words[(n * 7 + l * 3) % words.length] as string;
        const other = words[(n + l) % words.length] as string;
        lines.push(
          l % 3 === 0 ? `export function ${word}${n}_${l}(${other}) { return ${other}; }` : `// filler ${n} ${l}`,
        );
      }
      writeFileSync(join(dir, `file${String(f).padStart(3, "0")}.ts`), `${lines.join("\n")}\n`);
    }
  }
}
makeTree();

describe("ripgrep determinism", () => {
  it("ships identical frames for the same query over the same tree, run after run", async () => {
    // A small cap, far below the tree's ~12,000 match lines: the cap decides which files count.
    const provider = ripgrepProvider({ root, logger: silentLogger, maxMatches: 400 });
    providers.push(provider);
    const answers: string[] = [];
    for (let run = 0; run < 6; run++) {
      const result = await provider.query({
        goal: "retry the upload when the request handler times out",
        kinds: [],
        anchors: [],
        max_tokens: 2048,
        max_frames: 20,
      });
      expect(result.frames.length).toBeGreaterThan(0);
      answers.push(JSON.stringify(result.frames.map((frame) => [frame.id, frame.score, frame.token_cost])));
    }
    expect(new Set(answers).size).toBe(1);
  }, 120_000);
});
