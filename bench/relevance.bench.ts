/**
 * relevance benchmark: `ocp eval` (runEval) against the reference plugins, ripgrep and
 * symbols, on goals mined from a git history — this repository's own by default, or any
 * `--repo PATH` — with the BM25 baseline in the same run. Not part of a plain
 * `npm run bench` (it takes minutes): `npm run bench -- relevance [options]`.
 *
 * Targets (issue 28), over all cases, each plugin against BM25 in the same run: hunk
 * recall ≥ 1.5× BM25's at 2048 and at 8192 tokens; acc@1 ≥ 1.3× at both; file recall
 * ≥ 1.3× at 2048 and at least BM25's at 8192 (where BM25 nears the ceiling); and issue
 * 14's MRR at least BM25's at 2048. Held-out
 * rows are reported apart, and each verdict names the held-out ratio too. Check: every
 * query was answered (a failed query scores as an empty answer, and would make the
 * figures lie).
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
  and symbols plugins, with the BM25 baseline in the same run, and judges the targets
  (issue 28): hunk recall >= 1.5x BM25 at 2048 and 8192 tokens, acc@1 >= 1.3x at both,
  file recall >= 1.3x at 2048 and >= 1x at 8192, MRR >= 1x at 2048. Defaults: --cases 60,
  --budget 2048,8192, --runs 2, both plugins; max_frames 20 (what the targets were set at).
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

const f2 = (value: number | null) => (value === null ? "–" : value.toFixed(2));
const ratioText = (value: number | null | undefined) =>
  value === null || value === undefined ? "–" : `${value.toFixed(2)}×`;
const pair = (ours: number | null, bm25: number | null | undefined) => `${f2(ours)} / ${f2(bm25 ?? null)}`;

function rows(plugin: string, report: EvalReport): BenchRow[] {
  return report.summary
    .filter((row) => row.split !== "tuned")
    .map((row: SummaryRow) => ({
      plugin,
      split: row.split,
      budget: row.budget,
      cases: row.cases,
      "file recall ours / bm25": pair(row.ours.recall, row.bm25?.recall),
      "× recall": ratioText(row.ratio?.recall),
      "acc@1 ours / bm25": pair(row.ours.acc1, row.bm25?.acc1),
      "× acc@1": ratioText(row.ratio?.acc1),
      "hunk recall ours / bm25": pair(row.ours.hunkRecall, row.bm25?.hunkRecall),
      "× hunks": ratioText(row.ratio?.hunkRecall),
      "in gold files": pair(row.ours.goldShare, row.bm25?.goldShare),
      "changed over runs": report.spread.find((s) => s.budget === row.budget)?.changedCases ?? 0,
    }));
}

/** The targets: the metric, the budget it is judged at, and the ratio to BM25 it must reach. */
const TARGETS = [
  { metric: "hunkRecall", name: "hunk recall", budget: 2048, need: 1.5 },
  { metric: "hunkRecall", name: "hunk recall", budget: 8192, need: 1.5 },
  { metric: "acc1", name: "acc@1", budget: 2048, need: 1.3 },
  { metric: "acc1", name: "acc@1", budget: 8192, need: 1.3 },
  { metric: "recall", name: "file recall", budget: 2048, need: 1.3 },
  { metric: "recall", name: "file recall", budget: 8192, need: 1 },
  // Issue 14's, kept: the first gold frame no later than BM25's on average.
  { metric: "mrr", name: "MRR", budget: 2048, need: 1 },
] as const;

/** ours ÷ BM25 for a target's metric; a metric BM25 scores 0 on is met by any ours above 0. */
function judged(row: SummaryRow, metric: (typeof TARGETS)[number]["metric"]): number {
  const ours = row.ours[metric] ?? 0;
  const ratio = row.ratio?.[metric];
  if (ratio !== null && ratio !== undefined) return ratio;
  return ours > 0 ? Number.POSITIVE_INFINITY : 0;
}

/** The issue-28 verdicts of one plugin's report (over all cases), with the held-out figures beside. */
function verdictsOf(plugin: string, report: EvalReport, notes: string[]): Verdict[] {
  const verdicts: Verdict[] = [];
  for (const target of TARGETS) {
    const all = report.summary.find((row) => row.split === "all" && row.budget === target.budget);
    if (all?.bm25 === undefined) {
      notes.push(`${plugin}: ${target.name} at ${target.budget} tokens not judged (that budget was not asked)`);
      continue;
    }
    const held = report.summary.find((row) => row.split === "held-out" && row.budget === target.budget);
    const heldText =
      held === undefined || held.cases === 0
        ? ""
        : `; held-out ${f2(held.ours[target.metric])} vs ${f2(held.bm25?.[target.metric] ?? null)} (${ratioText(held.ratio?.[target.metric])}, ${held.cases} case${held.cases === 1 ? "" : "s"})`;
    verdicts.push(
      ratioVerdict(
        `${plugin}: ${target.name} at ${target.budget} tokens ${target.need === 1 ? "at least BM25's" : `≥ ${target.need}× BM25's`}`,
        judged(all, target.metric),
        target.need,
        `${f2(all.ours[target.metric])} vs ${f2(all.bm25[target.metric])} over ${all.cases} cases${heldText}`,
      ),
    );
  }
  return verdicts;
}

/** Runs the benchmark. */
export async function run(): Promise<BenchReport> {
  const repo = option("repo") ?? REPO;
  const budgets = (option("budget") ?? "2048,8192").split(",").map(Number);
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
      // ocp eval's default is now a host's 10; the targets and the figures in bench/README.md were measured at 20.
      maxFrames: 20,
      runs,
      onProgress: (p) => process.stderr.write(`relevance ${plugin}: ${p.done}/${p.total} ${p.caseId}\n`),
    });
    table.push(...rows(plugin, report));
    verdicts.push(...verdictsOf(plugin, report, notes));
    const errors = report.summary.filter((row) => row.split === "all").reduce((n, row) => n + row.errors, 0);
    verdicts.push(checkVerdict(`${plugin}: every query answered`, errors === 0, `${errors} failed queries`));
    if (report.source.kind === "git") {
      notes.push(
        `${plugin}: ${repo} at ${report.source.head.slice(0, 12)}, ${report.cases.length} cases ` +
          `(${report.cases.filter((c) => c.heldOut).length} held out), ${report.runs} run(s), ${(report.elapsedMs / 1000).toFixed(0)} s`,
      );
    }
  }
  notes.push(
    "ours / bm25 are means over the cases; × is ours ÷ BM25; docs/eval.md says what each metric means and why the targets hold them together.",
  );
  return { title: "relevance — ocp eval: ripgrep and symbols vs BM25 on mined commits", rows: table, verdicts, notes };
}
