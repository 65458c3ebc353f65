/**
 * `ocp bench <module>`: benchmark a provider's token accounting in-process, on your
 * goals (`--goals FILE`, `--goal TEXT`) or on goals drawn from its own frames, and
 * print what {@link runBench} measured — as a table, or as JSON with `--json`.
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import pc from "picocolors";
import { argsErrorMessage } from "./args.js";
import { type BenchReport, runBench, type Timing } from "./bench-run.js";
import { parseTokenizerList, renderTokenizers } from "./bench-tokenizers.js";
import { useColor } from "./color.js";
import { loadProvider } from "./load-provider.js";
import { CommandUsageError } from "./usage.js";

const usage = (message: string) => new CommandUsageError("bench", message);

function whole(name: string, value: string | undefined, fallback: number, min: number): number {
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(parsed) || parsed < min || parsed > 4_294_967_295) {
    throw usage(`--${name} must be a whole number ≥ ${min}, not '${value}'`);
  }
  return parsed;
}

/** The goals of a `--goals` file: one a line; blank lines and lines starting with # are skipped. */
export function readGoals(file: string): string[] {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw usage(`--goals: cannot read ${file}: ${(error as Error).message}`);
  }
  const goals = text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"));
  if (goals.length === 0) throw usage(`--goals: ${file} has no goals (one a line)`);
  return goals;
}

/** Runs `ocp bench`. */
export async function benchCommand(args: string[]): Promise<void> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(args);
  } catch (error) {
    throw usage(argsErrorMessage(error) ?? (error as Error).message);
  }
  const { values, positionals } = parsed;
  const [module, ...extra] = positionals;
  if (module === undefined || extra.length > 0) throw usage("takes exactly one module");
  const budget = whole("budget", values.budget, 1024, 1);
  const maxFrames = whole("max-frames", values["max-frames"], 8, 1);
  const rounds = whole("rounds", values.rounds, 5, 1);
  // A goals file is the list; --goal alone is where drawing from the provider's frames starts.
  const given = values.goals === undefined ? undefined : [...readGoals(values.goals), ...(values.goal ?? [])];
  const seeds = values.goal !== undefined && values.goal.length > 0 ? values.goal : undefined;
  const tokenizers = values.tokenizers === undefined ? undefined : parseTokenizerList(values.tokenizers);
  if (typeof tokenizers === "string") throw usage(`--tokenizers: ${tokenizers}`);
  const provider = await loadProvider(module);
  try {
    const report = await runBench(provider, {
      goals: given,
      seeds,
      budget,
      maxFrames,
      rounds,
      ...(tokenizers !== undefined ? { tokenizers } : {}),
    });
    process.stdout.write(
      values.json ? `${JSON.stringify(report, null, 2)}\n` : renderBench(report, useColor(process.stdout)),
    );
  } finally {
    await provider.close();
  }
}

/** The options of `ocp bench`. */
export const BENCH_OPTIONS = {
  goals: { type: "string" },
  goal: { type: "string", multiple: true },
  budget: { type: "string" },
  "max-frames": { type: "string" },
  rounds: { type: "string" },
  tokenizers: { type: "string" },
  json: { type: "boolean", default: false },
} as const;

function parse(args: string[]) {
  return parseArgs({ args, allowPositionals: true, options: BENCH_OPTIONS });
}

const ms = (value: number) => (value < 10 ? value.toFixed(2) : value < 100 ? value.toFixed(1) : value.toFixed(0));
const percent = (fraction: number, signed = false) =>
  `${signed && fraction > 0 ? "+" : ""}${(fraction * 100).toFixed(1)}%`;

/**
 * How many answers left candidates out, and how many of those stopped at `max_frames`
 * rather than at the budget: "50 of 50 truncated" with a fifth of the budget unused
 * otherwise reads as a budget too small.
 */
function truncation(report: BenchReport): string {
  const { truncated, truncatedAtMaxFrames: atFrames } = report.shipped;
  const head = `${truncated} of ${report.queries}`;
  const frames = `max_frames ${report.maxFrames}`;
  if (truncated === 0) return `${head} (every answer shipped all it found)`;
  if (atFrames === 0) return `${head}, by the budget (or a plugin's own limit), none at ${frames}`;
  if (atFrames === truncated)
    return `${head}, ${truncated === 1 ? "it" : "all"} at ${frames}: the frame limit bound, not the budget`;
  return `${head}: ${atFrames} at ${frames}, ${truncated - atFrames} by the budget (or a plugin's own limit)`;
}

/** The report as a person reads it. */
export function renderBench(report: BenchReport, color: boolean): string {
  const c = pc.createColors(color);
  const { provider, shipped, cache } = report;
  const lines = [
    c.bold(
      `ocp bench · ${provider.name} ${provider.version} · ${report.goals.length} goals${report.drawn ? " (drawn from its frames)" : ""} × ${report.rounds} rounds · budget ${report.budget} tokens, ${report.maxFrames} frames · ${provider.tokenizer}`,
    ),
    `setup ${ms(report.setupMs)} ms (plugin setups, before the first query)`,
    `tokenizer ${ms(report.tokenizerLoadMs)} ms (loading its tables, before the first query: in none of the times below)`,
    "",
    `${`per query, ms (${report.queries} queries)`.padEnd(30)}${"median".padStart(8)} ${"p95".padStart(8)} ${"mean".padStart(8)}`,
  ];
  const row = (label: string, t: Timing) =>
    `  ${label.padEnd(28)}${ms(t.median).padStart(8)} ${ms(t.p95).padStart(8)} ${ms(t.mean).padStart(8)}`;
  lines.push(
    row("total", report.time.total),
    row("search (plugins)", report.time.search),
    row("token counting (exact)", report.time.counting),
    row("packing (without counting)", report.time.packing),
    row("frames (ids, digests)", report.time.frames),
    "",
  );
  const lookups = cache.hits + cache.misses;
  lines.push(
    `token count cache   ${lookups === 0 ? "no lookups" : `${percent(cache.hits / lookups)} hits (${cache.hits} of ${lookups} counts)`}; first round ${percent(cache.firstRound)} (emptied before it), ${report.rounds > 1 ? `later rounds ${percent(cache.later)}` : "no later round"}`,
    `tokens shipped      mean ${shipped.mean.toFixed(0)} of ${report.budget} (${percent(shipped.mean / report.budget)}), min ${shipped.min}, max ${shipped.max}${shipped.max > report.budget ? c.red(" — OVER BUDGET") : ""}; ${shipped.empty} of ${report.queries} empty`,
    `truncated           ${truncation(report)}`,
    "",
    `estimates against the exact ${provider.tokenizer} count, on ${report.estimates.frames} distinct frame${report.estimates.frames === 1 ? "" : "s"} (each goal's frames under a wide budget):`,
    `  ${"".padEnd(12)}${"mean error".padStart(11)}${"bias".padStart(9)}${"worst".padStart(9)}${"Σ est/exact".padStart(13)}   packed by it: over budget`,
  );
  for (const estimate of report.estimates.of) {
    const over = estimate.overPacking;
    const verdict =
      over.queriesOver === 0
        ? c.green("never")
        : c.red(
            `${over.queriesOver} of ${report.goals.length} queries, ${over.framesPastBudget} frame${over.framesPastBudget === 1 ? "" : "s"} past it (worst +${over.worstOvershoot} tokens)`,
          );
    lines.push(
      `  ${estimate.name.padEnd(12)}${percent(estimate.meanError).padStart(11)}${percent(estimate.bias, true).padStart(9)}${percent(estimate.worst, true).padStart(9)}${estimate.totalRatio.toFixed(2).padStart(13)}   ${verdict}`,
    );
  }
  lines.push(
    c.dim(
      "  (packed by it: best first, a frame ships whole when its estimate fits what is left; then its exact cost is added up)",
    ),
  );
  if (report.tokenizers !== undefined)
    lines.push("", ...renderTokenizers(report.tokenizers, provider.tokenizer, report.budget));
  return `${lines.join("\n")}\n`;
}
