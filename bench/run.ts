/**
 * Runs the benchmarks: every `bench/*.bench.ts`, or those named on the command line
 * (`npm run bench -- pack tokens`). Adding a benchmark is adding a file: export
 * `run(): Promise<BenchReport>` from `bench/<name>.bench.ts` and it is picked up. A
 * module that exports `optIn = true` runs only when named (it takes minutes); one that
 * exports `usage` prints it for `--help` and runs nothing. Options of a benchmark
 * (`--repo PATH`, `--cases=60`) are read by the module itself.
 *
 * Each module prints its table and verdicts as soon as it finishes; a summary of
 * every verdict closes the run. The exit code is 1 if a correctness check failed or
 * a benchmark crashed; speed targets only fail the run with `--strict`, because a
 * shared machine can move a ratio by a few percent.
 */
import { readdirSync } from "node:fs";
import { register } from "node:module";
import { type BenchModule, type BenchReport, markdownTable, type Verdict, verdictLine } from "./harness.js";

// Benchmarks import template sources in place (the search-index adapters): their layers
// resolve composed, as in a generated project. Before any benchmark module loads.
register("../test/test-support/template-layers-hooks.js", import.meta.url);

const SUFFIX = ".bench.ts";
const here = new URL(".", import.meta.url);

/** The benchmark names available, from the file names. */
function available(): string[] {
  return readdirSync(here)
    .filter((file) => file.endsWith(SUFFIX))
    .map((file) => file.slice(0, -SUFFIX.length))
    .sort();
}

type Loaded = Partial<BenchModule> & { optIn?: boolean; usage?: string };

const load = async (name: string) => (await import(new URL(`${name}${SUFFIX}`, here).href)) as Loaded;

async function runOne(name: string): Promise<readonly BenchReport[]> {
  const module = await load(name);
  if (typeof module.run !== "function") throw new Error(`bench/${name}${SUFFIX} does not export run()`);
  const reports = await module.run();
  return Array.isArray(reports) ? reports : [reports as BenchReport];
}

/** Flags of run.ts itself, which take no value. */
const OWN_FLAGS = new Set(["--strict", "--help", "-h"]);

/** The benchmark names on the command line: positionals that are not the value of a benchmark's `--option`. */
function named(argv: readonly string[]): string[] {
  return argv.filter((arg, i) => {
    if (arg.startsWith("-")) return false;
    const previous = argv[i - 1];
    return previous === undefined || !previous.startsWith("--") || previous.includes("=") || OWN_FLAGS.has(previous);
  });
}

function print(report: BenchReport, seconds: number): void {
  console.log(`\n## ${report.title}\n`);
  console.log(markdownTable(report.rows));
  const notes = report.notes ?? [];
  if (notes.length > 0) console.log(`\n${notes.map((note) => `- ${note}`).join("\n")}`);
  console.log("");
  for (const verdict of report.verdicts) console.log(verdictLine(verdict));
  console.log(`(${seconds.toFixed(1)} s)`);
}

const USAGE = `npm run bench -- [name...] [--strict]

Runs this repository's benchmarks: every bench/*.bench.ts, or those named, one after
another, each printing its table and verdicts. The exit code is 1 when a correctness
check fails or a benchmark crashes; with --strict also when a speed target is not met.

Benchmarks: NAMES

To benchmark your own provider's token accounting: ocp bench <module> (ocp bench --help).
`;

async function main(argv: string[]): Promise<number> {
  // `npm run bench -- --help` is this usage; `npm run bench -- relevance --help` is that benchmark's.
  if ((argv.includes("--help") || argv.includes("-h")) && named(argv).length === 0) {
    process.stdout.write(USAGE.replace("NAMES", available().join(", ")));
    return 0;
  }
  // A named benchmark may take options of its own (relevance --repo PATH); with none named, only ours.
  const unknownFlags = argv.filter((arg) => arg.startsWith("-") && !OWN_FLAGS.has(arg));
  if (unknownFlags.length > 0 && named(argv).length === 0) {
    console.error(`unknown option(s): ${unknownFlags.join(", ")} (npm run bench -- --help)`);
    return 2;
  }
  const strict = argv.includes("--strict");
  const wanted = named(argv);
  const names = available();
  const unknown = wanted.filter((name) => !names.includes(name));
  if (unknown.length > 0) {
    console.error(`unknown benchmark(s): ${unknown.join(", ")} (available: ${names.join(", ")})`);
    return 2;
  }
  if (argv.includes("--help") || argv.includes("-h")) {
    for (const name of wanted.length > 0 ? wanted : names) {
      const module = await load(name);
      console.log(module.usage ?? `npm run bench -- ${name}${module.optIn ? "  (only when named)" : ""}`);
    }
    return 0;
  }
  let selected = names.filter((name) => wanted.includes(name));
  if (wanted.length === 0) {
    selected = [];
    for (const name of names) if ((await load(name)).optIn !== true) selected.push(name);
  }
  console.log(`# ocp-provider benchmarks — node ${process.version}, ${process.platform}-${process.arch}`);

  const verdicts: { bench: string; verdict: Verdict }[] = [];
  const crashed: string[] = [];
  const started = performance.now();
  // One at a time: benchmarks running side by side would measure each other.
  for (const name of selected) {
    const began = performance.now();
    try {
      const reports = await runOne(name);
      for (const report of reports) {
        print(report, (performance.now() - began) / 1000);
        for (const verdict of report.verdicts) verdicts.push({ bench: name, verdict });
      }
    } catch (error) {
      crashed.push(name);
      console.error(
        `\n## ${name}: crashed\n${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
      );
    }
  }

  console.log(`\n## Summary (${((performance.now() - started) / 1000).toFixed(1)} s)\n`);
  for (const { bench, verdict } of verdicts) console.log(`${bench.padEnd(8)} ${verdictLine(verdict)}`);
  for (const name of crashed) console.log(`${name.padEnd(8)} CRASHED (see above)`);
  const failedChecks = verdicts.filter(({ verdict }) => verdict.kind === "check" && !verdict.met).length;
  const missedTargets = verdicts.filter(({ verdict }) => verdict.kind === "target" && !verdict.met).length;
  console.log(
    `\n${verdicts.length - failedChecks - missedTargets} met, ${missedTargets} target(s) NOT met, ` +
      `${failedChecks} check(s) failed, ${crashed.length} crashed`,
  );
  if (failedChecks > 0 || crashed.length > 0) return 1;
  return strict && missedTargets > 0 ? 1 : 0;
}

process.exitCode = await main(process.argv.slice(2));
