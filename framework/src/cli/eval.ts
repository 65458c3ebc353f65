/**
 * `ocp eval`: score a provider's frames against goals mined from a git history (or
 * labelled by hand), beside a BM25 baseline over the same tree. The table goes to
 * stdout (or, with --json, only the JSON report); progress goes to stderr.
 */
import { parseArgs } from "node:util";
import { renderReport } from "../eval/render.js";
import { EVAL_DEFAULTS, runEval } from "../eval/run.js";
import type { CommandLine, EvalProgress, EvalSource } from "../eval/types.js";
import { terminalText } from "../provider/display-text.js";
import { ERROR_CODES, OcpError } from "../provider/errors.js";
import { TOKENIZERS, type TokenizerName } from "../tokens/counter.js";
import { argsErrorMessage } from "./args.js";

/** The usage of `ocp eval`. */
export const EVAL_USAGE = `ocp eval — how often a provider's frames cite the files and lines a goal is about, beside BM25

Usage:
  ocp eval --repo PATH [options] -- <provider command, with {root}>
  ocp eval --cases FILE.jsonl --root DIR [options] -- <provider command>

  Mines cases from PATH's git history: goal = a commit's message, gold = the 1-3 source
  files it changed, tree = its parent, written to a temporary directory. Or reads labelled
  cases, one {"goal": "...", "gold": ["path", "path#L10-40", "uri", ...]} per line.
  The provider is spawned over stdio with {root} (and {cache}, a scratch directory per tree)
  replaced, and asked every goal under every budget.

Options:
  --repo PATH          the git repository (a checkout, a bare clone or a mirror)
  --rev REV            mine the history of REV (default HEAD)
  --cases N|FILE       how many cases to mine (default ${EVAL_DEFAULTS.cases}), or a labelled cases file
  --root DIR           with a cases file: the directory served and the gold is relative to
  --seed S             sample the qualifying commits with seed S (default: the most recent)
  --budget B,B,..      token budgets (default ${EVAL_DEFAULTS.budgets.join(",")})
  --max-frames N       max_frames of each query (default ${EVAL_DEFAULTS.maxFrames}, what the MCP tool asks)
  --runs R             ask every case R times and report how far the runs disagree (default 1)
  --prepare "CMD"      run before the provider for each tree, e.g. to build its index (split on
                       spaces, {root} and {cache} replaced; must exit 0)
  --timeout MS         bound on one query and on the handshake (default ${EVAL_DEFAULTS.queryTimeoutMs})
  --work-dir DIR       keep trees (and {cache}) in DIR and reuse them next time (default: a
                       temporary directory, removed at the end)
  --tokenizer T        what the baseline packs with and gold is counted with (default o200k_base)
  --no-baseline        skip BM25
  --allow-egress       query a provider that declares data_flow.egress
  --json               print only the JSON report on stdout
  -h, --help           show this help

Example:
  ocp eval --repo . --budget 1024,2048,4096 -- ocp-ripgrep --root {root}

Progress (with the time left) and warnings go to stderr: a narrow gold spread (one file
in a quarter of the cases, or no more gold files than max_frames) is said before the run.
docs/eval.md says what each metric means, which commits qualify and why others are skipped.
`;

/** The options of `ocp eval` (read with `--no-` forms: `--no-baseline`). */
export const EVAL_OPTIONS = {
  repo: { type: "string" },
  rev: { type: "string" },
  cases: { type: "string" },
  root: { type: "string" },
  seed: { type: "string" },
  budget: { type: "string" },
  "max-frames": { type: "string" },
  runs: { type: "string" },
  prepare: { type: "string" },
  timeout: { type: "string" },
  "work-dir": { type: "string" },
  tokenizer: { type: "string" },
  baseline: { type: "boolean", default: true },
  "allow-egress": { type: "boolean", default: false },
  json: { type: "boolean", default: false },
  help: { type: "boolean", short: "h", default: false },
} as const;

function usageError(message: string): OcpError {
  return new OcpError(ERROR_CODES.USAGE, `${message}\n\n${EVAL_USAGE}`);
}

function whole(name: string, value: string, min: number): number {
  const parsed = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(parsed) || parsed < min || parsed > 4_294_967_295) {
    throw usageError(`--${name} must be a whole number ≥ ${min}, not '${value}'`);
  }
  return parsed;
}

function commandLine(words: readonly string[], what: string): CommandLine {
  const [command, ...args] = words;
  if (command === undefined || command === "") throw usageError(`${what} is empty`);
  return { command, args };
}

/** A duration as a person reads it: `42 s`, `3 min 20 s`, `1 h 05 min`. */
export function duration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${String(seconds % 60).padStart(2, "0")} s`;
  return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, "0")} min`;
}

/**
 * The time a run has taken and, once a case is done, how long the rest should take at
 * the mean per case so far: `42 s, about 3 min 20 s left`.
 */
export function estimate(progress: Pick<EvalProgress, "done" | "total" | "elapsedMs">, fallbackMs: number): string {
  const elapsed = progress.elapsedMs ?? fallbackMs;
  if (progress.done <= 0 || progress.done >= progress.total) return duration(elapsed);
  const left = (elapsed / progress.done) * (progress.total - progress.done);
  return `${duration(elapsed)}, about ${duration(left)} left`;
}

/** A progress bar on stderr: redrawn in place on a terminal, one line per case otherwise; each with the time left. */
export function progressReporter(stream: NodeJS.WriteStream = process.stderr): {
  update(progress: EvalProgress): void;
  done(): void;
} {
  const began = Date.now();
  const tty = stream.isTTY === true;
  let drawn = false;
  return {
    update(progress) {
      const time = estimate(progress, Date.now() - began);
      const metric = (name: string, value: { ours: number | null; bm25?: number | null } | undefined) =>
        value === undefined || value.ours === null
          ? ""
          : ` ${name} ${value.ours.toFixed(2)}${value.bm25 === undefined || value.bm25 === null ? "" : ` (bm25 ${value.bm25.toFixed(2)})`}`;
      const recall = metric("recall", progress.recall) + metric("hunks", progress.hunkRecall);
      const count = `${progress.done}/${progress.total}`;
      if (tty) {
        const width = 24;
        const filled = Math.round((progress.done / Math.max(1, progress.total)) * width);
        // Count and time first, cut to the terminal's width: a line that wrapped could not be redrawn in place.
        const line = `[${"#".repeat(filled)}${".".repeat(width - filled)}] ${count} ${time} · ${terminalText(progress.caseId)}${recall}`;
        stream.write(`\r\x1b[2K${line.slice(0, Math.max(20, (stream.columns ?? 100) - 1))}`);
        drawn = true;
      } else {
        stream.write(`ocp eval: ${count} ${terminalText(progress.caseId)}${recall} (${time})\n`);
      }
    },
    done() {
      if (drawn) stream.write("\n");
    },
  };
}

/** Runs `ocp eval`; resolves to the exit code. */
export async function evalMain(argv: readonly string[]): Promise<number> {
  const separator = argv.indexOf("--");
  const own = separator < 0 ? [...argv] : argv.slice(0, separator);
  const provider = separator < 0 ? [] : argv.slice(separator + 1);
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: own,
      allowPositionals: false,
      allowNegative: true,
      options: EVAL_OPTIONS,
    }));
  } catch (error) {
    throw usageError(argsErrorMessage(error) ?? (error as Error).message);
  }
  if (values.help === true) {
    process.stdout.write(EVAL_USAGE);
    return 0;
  }
  const text = (key: string) => values[key] as string | undefined;
  if (provider.length === 0) throw usageError("give the provider command after --, e.g. -- ocp-ripgrep --root {root}");
  const cases = text("cases");
  const labelled = cases !== undefined && !/^\d+$/.test(cases);
  // Mined cases each bring their own tree; a labelled run serves one root, which the provider may know already.
  if (!labelled && !provider.some((arg) => arg.includes("{root}"))) {
    throw usageError("the provider command must take the tree's root: put {root} where it goes (--root {root})");
  }
  let source: EvalSource;
  if (labelled) {
    const root = text("root");
    if (root === undefined) throw usageError("--cases FILE needs --root DIR (the directory the gold is relative to)");
    if (text("repo") !== undefined) throw usageError("give --repo (mined cases) or --cases FILE (labelled), not both");
    source = { kind: "labelled", root, cases };
  } else {
    const repo = text("repo");
    if (repo === undefined) throw usageError("--repo PATH is required (or --cases FILE.jsonl --root DIR)");
    if (text("root") !== undefined)
      throw usageError("--root goes with --cases FILE; mined cases bring their own trees");
    source = {
      kind: "git",
      repo,
      rev: text("rev"),
      cases: cases === undefined ? undefined : whole("cases", cases, 1),
      seed: text("seed"),
    };
  }
  const tokenizer = text("tokenizer") ?? "o200k_base";
  if (!(TOKENIZERS as readonly string[]).includes(tokenizer)) {
    throw usageError(`--tokenizer must be one of ${TOKENIZERS.join(", ")}, not '${tokenizer}'`);
  }
  const budgets = text("budget")
    ?.split(",")
    .map((budget) => whole("budget", budget.trim(), 1));
  const prepare = text("prepare");
  const progress = progressReporter();
  // Interrupted, still exit through process.exit: its hooks remove the trees and stop the provider's process group.
  const interrupted = (code: number) => () => {
    progress.done();
    process.stderr.write("ocp eval: interrupted\n");
    process.exit(code);
  };
  process.once("SIGINT", interrupted(130));
  process.once("SIGTERM", interrupted(143));
  const report = await runEval({
    provider: commandLine(provider, "the provider command"),
    prepare: prepare === undefined ? undefined : commandLine(prepare.trim().split(/\s+/), "--prepare"),
    source,
    budgets,
    maxFrames: text("max-frames") === undefined ? undefined : whole("max-frames", text("max-frames") as string, 1),
    runs: text("runs") === undefined ? undefined : whole("runs", text("runs") as string, 1),
    queryTimeoutMs: text("timeout") === undefined ? undefined : whole("timeout", text("timeout") as string, 1),
    workDir: text("work-dir"),
    tokenizer: tokenizer as TokenizerName,
    baseline: values.baseline !== false,
    allowEgress: values["allow-egress"] === true,
    onProgress: (event) => progress.update(event),
  }).finally(() => progress.done());
  process.stdout.write(values.json === true ? `${JSON.stringify(report, null, 2)}\n` : renderReport(report));
  return 0;
}
