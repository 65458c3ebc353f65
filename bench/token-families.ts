/**
 * The open model families' counters against their packages' own encoders (part of
 * `npm run bench -- tokens`), side by side in one run:
 *
 * - first use: a fresh process loads the family and counts one text, ours
 *   (`createTokenCounter({ tokenizer })`: the vocabulary read as JSON, special tokens
 *   as plain text) against the package's own (`fromPreTrained()` from its bundle);
 * - per query: texts counted per second, ours (with its content cache) against the
 *   package's own `encode(text, { add_special_tokens: false })`, on ~300-byte code
 *   chunks (uncached: a pool twice the cache's size; cached: the same texts again) and
 *   on ~2.5 KB documents.
 *
 * The counts are checked too: ours must equal the package's own on every text of the
 * corpus (it holds no special-token text, where they differ by design), or the run fails.
 */
import { execFile } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { createTokenCounter, TOKENIZER_SPECS, type TokenizerName } from "ocp-provider/tokens";
import { codeSnippets, documents, meanBytes } from "./corpus.js";
import { type Count, cycling, uniqueDocuments } from "./count-tasks.js";
import {
  type BenchReport,
  type BenchRow,
  checkVerdict,
  formatMs,
  formatRate,
  formatRatio,
  measure,
  timing,
  type Verdict,
} from "./harness.js";

const run = promisify(execFile);
const require = createRequire(import.meta.url);
const TOKENS_ENTRY = fileURLToPath(import.meta.resolve("ocp-provider/tokens"));

const FAMILIES = TOKENIZER_SPECS.filter((spec) => spec.package !== undefined);
const CHUNK_POOL = 2 * 4096;
const BATCH = 64;
const DOC_COUNT = 16;
const DOC_BYTES = 2560;

interface Encoder {
  encode(text: string, options: { add_special_tokens: boolean }): number[];
}

/** Milliseconds a fresh node process takes to load a family and count one text, one way or the other. */
async function firstUse(name: TokenizerName, packageName: string, side: "ours" | "package"): Promise<number> {
  const script =
    side === "ours"
      ? `const { createTokenCounter } = await import(${JSON.stringify(TOKENS_ENTRY)});
         const t = performance.now(); createTokenCounter({ tokenizer: ${JSON.stringify(name)} }).count("hello world");
         console.log(performance.now() - t);`
      : `const t = performance.now(); const { fromPreTrained } = await import(${JSON.stringify(packageName)});
         fromPreTrained().encode("hello world", { add_special_tokens: false });
         console.log(performance.now() - t);`;
  const { stdout } = await run(process.execPath, ["--input-type=module", "-e", script], { maxBuffer: 1 << 20 });
  return Number(stdout.trim());
}

/** The families' rows and checks. */
export async function runFamilies(): Promise<BenchReport> {
  const pool = codeSnippets(CHUNK_POOL, 0x70c0_0011);
  const hot = pool.slice(0, BATCH);
  const docs = documents(DOC_COUNT, DOC_BYTES, 0x70c0_0012);
  const rows: BenchRow[] = [];
  const verdicts: Verdict[] = [];
  for (const spec of FAMILIES) {
    const pkg = spec.package as { name: string };
    // Loads run one after another, each in a process of its own: nothing is cached between them.
    const loadOurs = await firstUse(spec.name, pkg.name, "ours");
    const loadOwn = await firstUse(spec.name, pkg.name, "package");
    const own = (require(pkg.name) as { fromPreTrained(): Encoder }).fromPreTrained();
    const ownCount: Count = (text) => own.encode(text, { add_special_tokens: false }).length;
    createTokenCounter({ tokenizer: spec.name }).preload();

    const cases = [
      { name: "300 B chunks, uncached", texts: pool, batch: BATCH, prime: false, unique: false },
      { name: "300 B chunks, cached", texts: hot, batch: BATCH, prime: true, unique: false },
      { name: "2.5 KB docs, uncached", texts: docs, batch: 1, prime: false, unique: true },
    ];
    const ratios: string[] = [];
    const rates: string[] = [];
    for (const benchCase of cases) {
      // A fresh counter per case, with its default cache: it holds only what the case primed.
      const ours = createTokenCounter({ tokenizer: spec.name }).count;
      if (benchCase.prime) for (const text of benchCase.texts) ours(text);
      const task = (count: Count) =>
        benchCase.unique ? uniqueDocuments(count, benchCase.texts) : cycling(count, benchCase.texts, benchCase.batch);
      const results = await measure(
        [
          { name: "ours", fn: task(ours) },
          { name: "package", fn: task(ownCount) },
        ],
        { time: 600, iterations: 8 },
      );
      const rate = (side: string) => (benchCase.batch * 1000) / timing(results, side).meanMs;
      rates.push(`${formatRate(rate("ours"))} vs ${formatRate(rate("package"))}`);
      ratios.push(formatRatio(rate("ours") / rate("package")));
    }
    rows.push({
      tokenizer: spec.name,
      package: pkg.name,
      "first use, ours": formatMs(loadOurs),
      "first use, package": formatMs(loadOwn),
      "load: package / ours": formatRatio(loadOwn / loadOurs),
      "chunks uncached: ours / package": ratios[0] as string,
      "chunks cached": ratios[1] as string,
      "2.5 KB docs uncached": ratios[2] as string,
      "rates (ours vs package), texts/s": rates.join("; "),
    });

    const check = createTokenCounter({ tokenizer: spec.name, cacheSize: 0 }).count;
    const texts = [...pool.slice(0, 512), ...docs];
    const differing = texts.filter((text) => check(text) !== ownCount(text));
    verdicts.push(
      checkVerdict(
        `${spec.name}: our counts identical to ${pkg.name}'s own encode on the benchmark corpus`,
        differing.length === 0,
        differing.length === 0 ? `${texts.length} texts, all equal` : `${differing.length} of ${texts.length} differ`,
      ),
    );
  }
  return {
    title: "tokens: the open model families, ours vs each package's own encode",
    rows,
    verdicts,
    notes: [
      "first use: a fresh node process loads the family and counts one text (ours reads the vocabulary as JSON; the package imports its bundle).",
      "ratios are ours / the package's own (texts per second), same run; above 1 ours is faster.",
      `mean bytes: chunks ${Math.round(meanBytes(pool))}, documents ${Math.round(meanBytes(docs))}; uncached chunks cycle through ${CHUNK_POOL} texts, twice the cache; uncached documents each get a unique first line.`,
    ],
  };
}
