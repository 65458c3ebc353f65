/**
 * Loading a BPE rank table: what a provider pays once, when it is first idle, and every
 * conformance host again. Ours reads the snapshot `npm run build` writes (dist/ranks/,
 * docs/tokens.md "Loading the tables"); the baseline is gpt-tokenizer's own encoding
 * module, which parses the table from a JavaScript array literal. Each load runs in a
 * fresh node process (nothing cached between them), alternating sides; the median of
 * several is reported.
 */
import { execFile } from "node:child_process";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import type { BpeEncodingName } from "ocp-provider/tokens";
import { type BenchReport, type BenchRow, formatMs, formatRatio, ratioVerdict, type Verdict } from "./harness.js";

const run = promisify(execFile);
const TOKENS_ENTRY = fileURLToPath(import.meta.resolve("ocp-provider/tokens"));
const ENCODINGS: BpeEncodingName[] = ["o200k_base", "cl100k_base"];
const SAMPLES = 7;
/** The snapshot exists only to save load time: below a quarter saved it would not earn its place. */
const TARGET = 1.25;

/** Milliseconds a fresh node process takes to load `encoding` and count one text, one way or the other. */
async function firstCount(encoding: BpeEncodingName, side: "ours" | "gpt-tokenizer"): Promise<number> {
  const script =
    side === "ours"
      ? `const { createTokenCounter } = await import(${JSON.stringify(TOKENS_ENTRY)});
         const t = performance.now(); createTokenCounter({ tokenizer: ${JSON.stringify(encoding)} }).count("hello world");
         console.log(performance.now() - t);`
      : `const { createRequire } = await import("node:module");
         const require = createRequire(${JSON.stringify(TOKENS_ENTRY)});
         const t = performance.now(); require("gpt-tokenizer/encoding/${encoding}").countTokens("hello world");
         console.log(performance.now() - t);`;
  const { stdout } = await run(process.execPath, ["--input-type=module", "-e", script], { maxBuffer: 1 << 20 });
  return Number(stdout.trim());
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1] as number;

/** The rank tables' load times, ours against gpt-tokenizer's module. */
export async function runTables(): Promise<BenchReport> {
  // Fails here, not as a slow row, when the build has not written the snapshots.
  const encoders = pathToFileURL(TOKENS_ENTRY.replace(/index\.js$/, "encoders.js")).href;
  const { rankSnapshot } = (await import(encoders)) as {
    rankSnapshot?: (name: BpeEncodingName) => unknown[] | undefined;
  };
  const rows: BenchRow[] = [];
  const verdicts: Verdict[] = [];
  for (const encoding of ENCODINGS) {
    if (rankSnapshot?.(encoding) === undefined)
      throw new Error(`no ${encoding} snapshot in ocp-provider's dist/ranks: run \`npm run build\``);
    const ours: number[] = [];
    const theirs: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      ours.push(await firstCount(encoding, "ours"));
      theirs.push(await firstCount(encoding, "gpt-tokenizer"));
    }
    const ratio = median(theirs) / median(ours);
    rows.push({
      encoding,
      "ours (snapshot)": formatMs(median(ours)),
      "gpt-tokenizer's module": formatMs(median(theirs)),
      "module / ours": formatRatio(ratio),
      "ours, min–max": `${formatMs(Math.min(...ours))}–${formatMs(Math.max(...ours))}`,
    });
    if (encoding === "o200k_base")
      verdicts.push(
        ratioVerdict(
          "o200k_base table loads at least 1.25× faster than gpt-tokenizer's own module",
          ratio,
          TARGET,
          `medians of ${SAMPLES} fresh processes each: ours ${formatMs(median(ours))}, module ${formatMs(median(theirs))}`,
        ),
      );
  }
  return {
    title: "tokens: loading a rank table in a fresh process, ours (the build's snapshot) vs gpt-tokenizer's module",
    rows,
    verdicts,
    notes: [
      "each figure: one fresh node process loading the table and counting one text, timed inside the process (node's own start excluded); sides alternate.",
      "o200k_base is the one every provider loads (the default); cl100k_base is reported for context.",
    ],
  };
}
