/**
 * relevance benchmark: `ocp eval` (runEval) against the reference plugins, ripgrep and
 * symbols, on goals mined from a git history — this repository's own by default, or any
 * `--repo PATH` — with the BM25 baseline in the same run. Not part of a plain
 * `npm run bench` (it takes minutes): `npm run bench -- relevance [options]`.
 *
 * Targets (issue 14): at 2048 tokens each plugin's file recall ≥ 1.3× BM25's and its MRR at
 * least BM25's. Check: every query was answered (a failed query scores as an empty answer,
 * and would make the figures lie).
 */
import { fileURLToPath } from "node:url";
import { type EvalReport, runEval, type SummaryRow } from "ocp-provider/eval";
import { type BenchReport, type BenchRow, checkVerdict, ratioVerdict, type Verdict } from "./harness.js";

const REPO = fileURLToPath(new URL("../", import.meta.url));
const bin = (name: string) => fileURLToPath(new URL(`../plugins/${name}/bin/ocp-${name}.js`, import.meta.url));

/** Not run by a plain `npm run bench`: only when named. */
export const optIn = true;

/** What `npm run bench -- relevance --help` prints. */
export const usage = `npm run bench -- relevance [--repo PATH] [--rev REV] [--cases N] [--budget B,B,..] [--runs R] [--plugins ripgrep,symbols]

  Runs ocp eval over PATH's git history (default: this repository) against the ripgrep
  and symbols plugins, with the BM25 baseline in the same run, and judges the targets at
  2048 tokens: file recall >= 1.3x BM25, MRR >= BM25. Defaults: --cases 60,
  --budget 1024,2048,4096, --runs 2, both plugins.
`;

/** The value of `--name V` or `--name=V` on the command line. */
function option(name: string): string | undefined {
  const argv = process.argv;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === `--${name}`) return argv[i + 1];
    if (arg.startsWith(`--${name}=`)) return arg.slice(name.length + 3);
  }
  return undefined;
}

/** The provider commands; symbols builds its index first (--prepare) so no query meets a half-built one. */
const PLUGINS = {
  ripgrep: { provider: { command: process.execPath, args: [bin("ripgrep"), "--root", "{root}"] } },
  symbols: {
    prepare: {
      command: process.execPath,
      args: [bin("symbols"), "--index", "--root", "{root}", "--cache-dir", "{cache}", "--no-progress"],
    },
    provider: {
      command: process.execPath,
      args: [bin("symbols"), "--root", "{root}", "--cache-dir", "{cache}", "--no-watch", "--no-progress"],
    },
  },
} as const;

const f2 = (value: number) => value.toFixed(2);
const ratioText = (value: number | null | undefined) =>
  value === null || value === undefined ? "–" : `${value.toFixed(2)}×`;

function rows(plugin: string, report: EvalReport): BenchRow[] {
  return report.summary
    .filter((row) => row.split !== "tuned")
    .map((row: SummaryRow) => ({
      plugin,
      split: row.split,
      budget: row.budget,
      cases: row.cases,
      "recall ours / bm25": `${f2(row.ours.recall)} / ${f2(row.bm25?.recall ?? 0)}`,
      "× recall": ratioText(row.ratio?.recall),
      "hit ours / bm25": `${f2(row.ours.hit)} / ${f2(row.bm25?.hit ?? 0)}`,
      "MRR ours / bm25": `${f2(row.ours.mrr)} / ${f2(row.bm25?.mrr ?? 0)}`,
      "× MRR": ratioText(row.ratio?.mrr),
      "nDCG ours / bm25": `${f2(row.ours.ndcg)} / ${f2(row.bm25?.ndcg ?? 0)}`,
      "changed over runs": report.spread.find((s) => s.budget === row.budget)?.changedCases ?? 0,
    }));
}

/** Runs the benchmark. */
export async function run(): Promise<BenchReport> {
  const repo = option("repo") ?? REPO;
  const budgets = (option("budget") ?? "1024,2048,4096").split(",").map(Number);
  const cases = Number(option("cases") ?? 60);
  const runs = Number(option("runs") ?? 2);
  const plugins = (option("plugins") ?? "ripgrep,symbols").split(",") as (keyof typeof PLUGINS)[];
  const table: BenchRow[] = [];
  const verdicts: Verdict[] = [];
  const notes: string[] = [];
  for (const plugin of plugins) {
    const commands = PLUGINS[plugin];
    if (commands === undefined) throw new Error(`unknown plugin '${plugin}' (ripgrep, symbols)`);
    const report = await runEval({
      ...commands,
      source: { kind: "git", repo, rev: option("rev"), cases },
      budgets,
      runs,
      onProgress: (p) => process.stderr.write(`relevance ${plugin}: ${p.done}/${p.total} ${p.caseId}\n`),
    });
    table.push(...rows(plugin, report));
    const at2048 = report.summary.find((row) => row.split === "all" && row.budget === 2048);
    if (at2048?.bm25 !== undefined) {
      verdicts.push(
        ratioVerdict(
          `${plugin}: file recall at 2048 tokens ≥ 1.3× BM25's`,
          at2048.ratio?.recall ?? 0,
          1.3,
          `${f2(at2048.ours.recall)} vs ${f2(at2048.bm25.recall)} over ${at2048.cases} cases`,
        ),
        ratioVerdict(
          `${plugin}: MRR at 2048 tokens at least BM25's`,
          at2048.ratio?.mrr ?? 0,
          1,
          `${f2(at2048.ours.mrr)} vs ${f2(at2048.bm25.mrr)}`,
        ),
      );
    }
    const errors = report.summary.filter((row) => row.split === "all").reduce((n, row) => n + row.errors, 0);
    verdicts.push(checkVerdict(`${plugin}: every query answered`, errors === 0, `${errors} failed queries`));
    if (report.source.kind === "git") {
      notes.push(
        `${plugin}: ${repo} at ${report.source.head.slice(0, 12)}, ${report.cases.length} cases ` +
          `(${report.cases.filter((c) => c.heldOut).length} held out), ${report.runs} run(s), ${(report.elapsedMs / 1000).toFixed(0)} s`,
      );
    }
  }
  notes.push("ours / bm25 are means over the cases; × is ours ÷ BM25; docs/eval.md says what each metric means.");
  return { title: "relevance — ocp eval: ripgrep and symbols vs BM25 on mined commits", rows: table, verdicts, notes };
}
