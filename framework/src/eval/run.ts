/**
 * runEval(): ask a provider, spawned as a real child process over stdio, every case's
 * goal under every budget, run the BM25 baseline over the same tree, and score both.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import type { ProviderConnection } from "../host/connection.js";
import { stderrGist } from "../host/process.js";
import { terminalLines } from "../provider/display-text.js";
import { describeError, ERROR_CODES, OcpError } from "../provider/errors.js";
import { createTokenCounter, type TokenCounter } from "../tokens/counter.js";
import { connectStdio } from "../transports/stdio/client.js";
import { askAll, baselineAll, goldOf, type Prepared } from "./answers.js";
import { Bm25Baseline } from "./baseline.js";
import { listTextFiles } from "./files.js";
import { openRepository } from "./git.js";
import { readLabelledCases } from "./labelled.js";
import { type EvalCase, type MineStats, mineCases } from "./mine.js";
import { HELD_OUT_RULE, meanMetrics, summarize } from "./report.js";
import { goldSpread } from "./spread.js";
import { removeAtExit, TreeCache } from "./trees.js";
import type { Answer, CaseBudget, CaseResult, CommandLine, EvalOptions, EvalReport } from "./types.js";

const execFileAsync = promisify(execFile);

/**
 * The default budgets, `max_frames`, number of mined cases and query bound. `max_frames`
 * is what an agent's host asks: the MCP bridge's `get_context` tool asks 10 when the agent
 * gives none (`ocp query`, a person's command, asks 8).
 */
export const EVAL_DEFAULTS = {
  budgets: [2048, 4096, 8192],
  maxFrames: 10,
  cases: 60,
  runs: 1,
  queryTimeoutMs: 60_000,
  prepareTimeoutMs: 600_000,
} as const;

/** `{root}` and `{cache}` replaced in every argument. */
function substitute(line: CommandLine, root: string, cache: string): CommandLine {
  const fill = (text: string) => text.replaceAll("{root}", root).replaceAll("{cache}", cache);
  return { command: fill(line.command), args: line.args.map(fill) };
}

const quote = (arg: string) => (/^[\w./:=@%+,-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", "'\\''")}'`);
const commandText = (line: CommandLine) => [line.command, ...line.args].map(quote).join(" ");

async function runPrepare(line: CommandLine, timeoutMs: number): Promise<void> {
  try {
    await execFileAsync(line.command, [...line.args], { timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 });
  } catch (error) {
    const failed = error as { stderr?: string; killed?: boolean; message: string };
    const why = failed.killed ? `did not finish within ${timeoutMs} ms` : stderrGist(failed.stderr ?? failed.message);
    throw new Error(`the prepare command '${commandText(line)}' failed: ${why}`);
  }
}

/** Everything fixed for the whole run. */
interface RunContext {
  readonly options: EvalOptions;
  readonly budgets: readonly number[];
  readonly maxFrames: number;
  readonly runs: number;
  readonly counter: TokenCounter;
  readonly timeoutMs: number;
  readonly warn: (message: string) => void;
  /** When the first case began (performance.now()): the mean per case, and so the time left, goes by it. */
  began?: number;
  /** Set once a provider has started: from then on a failed start is one case's failure, not a bad command. */
  started: boolean;
  name?: string;
  version?: string;
}

/** Starts the provider over `tree` (after the prepare command, if any) and sends a warm-up query. */
async function start(context: RunContext, tree: Prepared): Promise<ProviderConnection> {
  const { options } = context;
  if (options.prepare !== undefined) {
    await runPrepare(
      substitute(options.prepare, tree.root, tree.cache),
      options.prepareTimeoutMs ?? EVAL_DEFAULTS.prepareTimeoutMs,
    );
  }
  const line = substitute(options.provider, tree.root, tree.cache);
  const connection = await connectStdio(line.command, line.args, {
    handshakeTimeoutMs: context.timeoutMs,
    queryTimeoutMs: context.timeoutMs,
    consent: { isGranted: () => options.allowEgress === true },
    report: (message) => context.warn(message),
  });
  context.name = connection.info.name;
  context.version = connection.info.version;
  // The first query of a process pays for its warm-up (JIT, caches, an index check): not what latency should show.
  await connection.query({ goal: "ocp eval warm-up", max_tokens: 256, max_frames: 1 }).catch(() => undefined);
  context.started = true;
  return connection;
}

/** Starts the provider, or returns why it would not start — a bad command (the first start) ends the run. */
async function startOrError(context: RunContext, tree: Prepared): Promise<ProviderConnection | Error> {
  try {
    return await start(context, tree);
  } catch (error) {
    if (!context.started) {
      throw new OcpError(ERROR_CODES.EVAL, `the provider does not start: ${describeError(error)}`, { cause: error });
    }
    context.warn(`provider did not start: ${describeError(error)}`);
    return error instanceof Error ? error : new Error(String(error));
  }
}

/** Puts one case's answers (runs × budgets) together. */
function caseResult(
  kase: EvalCase,
  goldInfo: ReturnType<typeof goldOf>,
  runs: readonly Answer[][],
  bm25: readonly Answer[] | undefined,
  budgets: readonly number[],
): CaseResult {
  const perBudget: CaseBudget[] = budgets.map((budget, b) => {
    const ours = runs.map((answers) => answers[b] as Answer);
    const shapes = new Set(ours.map((answer) => JSON.stringify(answer.frames.map((f) => [f.ref, f.tokens]))));
    return { budget, ours, oursMean: meanMetrics(ours), changed: shapes.size > 1, bm25: bm25?.[b] };
  });
  return {
    id: kase.id,
    goal: kase.goal,
    gold: kase.gold,
    heldOut: kase.heldOut,
    commit: kase.commit,
    parent: kase.parent,
    goldTokens: goldInfo.goldTokens,
    unreachable: goldInfo.unreachable,
    hunks: goldInfo.hunks,
    budgets: perBudget,
  };
}

async function prepareTree(root: string, cache: string, useGit: boolean, baseline: boolean): Promise<Prepared> {
  const files = await listTextFiles(root, useGit);
  const roots = [...new Set([realpathSync(root), resolve(root)])];
  return {
    roots,
    root: roots[0] as string,
    cache,
    files: new Map(files.map((file) => [file.path, file])),
    bm25: baseline ? new Bm25Baseline(files) : undefined,
  };
}

/** Reports one finished case (of a labelled run: one case's run) with its recall at the middle budget. */
function progress(
  context: RunContext,
  done: number,
  total: number,
  caseId: string,
  ours: readonly MeanMetricsLike[],
  bm25: readonly Answer[] | undefined,
): void {
  const middle = Math.floor((ours.length - 1) / 2);
  const mine = ours[middle];
  const theirs = bm25?.[middle];
  context.options.onProgress?.({
    done,
    total,
    caseId,
    recall: mine === undefined ? undefined : { ours: mine.recall, bm25: theirs?.recall },
    hunkRecall: mine === undefined ? undefined : { ours: mine.hunkRecall, bm25: theirs?.hunkRecall },
    elapsedMs: context.began === undefined ? undefined : Math.round(performance.now() - context.began),
  });
}

/** The metrics a progress line shows: one answer's, or the mean of a case's runs. */
type MeanMetricsLike = Pick<Answer, "recall" | "hunkRecall">;

/** Mined cases: one tree (the parent) per case, a provider process per tree and run. */
async function evalMined(context: RunContext, repo: string, cases: readonly EvalCase[]): Promise<CaseResult[]> {
  const trees = new TreeCache(repo, { workDir: context.options.workDir });
  const results: CaseResult[] = [];
  try {
    for (const kase of cases) trees.plan(kase.parent as string);
    context.began = performance.now();
    for (const kase of cases) {
      const parent = kase.parent as string;
      const { root, cache } = await trees.acquire(parent);
      try {
        const tree = await prepareTree(root, cache, false, context.options.baseline !== false);
        const goldInfo = goldOf(kase, tree, context.counter);
        const bm25 =
          tree.bm25 && baselineAll(tree.bm25, kase, goldInfo, context.budgets, context.maxFrames, context.counter);
        // One process per tree; the runs repeat the queries to it (a provider should answer alike every time).
        const runs: Answer[][] = [];
        const connection = await startOrError(context, tree);
        try {
          for (let run = 0; run < context.runs; run++) {
            runs.push(await askAll(connection, kase, goldInfo, tree, { ...context, timeoutMs: context.timeoutMs }));
          }
        } finally {
          if (!(connection instanceof Error)) await connection.shutdown();
        }
        const result = caseResult(kase, goldInfo, runs, bm25, context.budgets);
        results.push(result);
        const means = result.budgets.map((row) => row.oursMean);
        progress(context, results.length, cases.length, result.id, means, bm25);
      } finally {
        trees.release(parent);
      }
    }
  } finally {
    await trees.close();
  }
  return results;
}

/** Labelled cases: one root, one provider process per run for all of them. */
async function evalLabelled(context: RunContext, root: string, cases: readonly EvalCase[]): Promise<CaseResult[]> {
  const scratch = mkdtempSync(join(tmpdir(), "ocp-eval-"));
  removeAtExit(scratch);
  try {
    context.began = performance.now();
    const tree = await prepareTree(root, scratch, true, context.options.baseline !== false);
    const golds = cases.map((kase) => goldOf(kase, tree, context.counter));
    const baselines = cases.map(
      (kase, index) =>
        tree.bm25 &&
        baselineAll(
          tree.bm25,
          kase,
          golds[index] as ReturnType<typeof goldOf>,
          context.budgets,
          context.maxFrames,
          context.counter,
        ),
    );
    const runs: Answer[][][] = cases.map(() => []);
    const connection = await startOrError(context, tree);
    // One process asks every case, run after run: progress counts each case's run as it is answered.
    const total = cases.length * context.runs;
    try {
      for (let run = 0; run < context.runs; run++) {
        for (const [index, kase] of cases.entries()) {
          const truth = golds[index] as ReturnType<typeof goldOf>;
          const answers = await askAll(connection, kase, truth, tree, { ...context, timeoutMs: context.timeoutMs });
          runs[index]?.push(answers);
          progress(context, run * cases.length + index + 1, total, kase.id, answers, baselines[index]);
        }
      }
    } finally {
      if (!(connection instanceof Error)) await connection.shutdown();
    }
    return cases.map((kase, index) =>
      caseResult(kase, golds[index] as ReturnType<typeof goldOf>, runs[index] ?? [], baselines[index], context.budgets),
    );
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

function checkOptions(options: EvalOptions): { budgets: number[]; maxFrames: number; runs: number } {
  const budgets = [...(options.budgets ?? EVAL_DEFAULTS.budgets)];
  const whole = (value: number, min: number) => Number.isSafeInteger(value) && value >= min && value <= 4_294_967_295;
  if (budgets.length === 0 || !budgets.every((budget) => whole(budget, 1))) {
    throw new OcpError(ERROR_CODES.USAGE, `budgets must be whole numbers ≥ 1, not ${JSON.stringify(budgets)}`);
  }
  const maxFrames = options.maxFrames ?? EVAL_DEFAULTS.maxFrames;
  if (!whole(maxFrames, 1)) throw new OcpError(ERROR_CODES.USAGE, `maxFrames must be a whole number ≥ 1`);
  const runs = options.runs ?? EVAL_DEFAULTS.runs;
  if (!whole(runs, 1) || runs > 100) throw new OcpError(ERROR_CODES.USAGE, `runs must be a whole number from 1 to 100`);
  return { budgets: [...new Set(budgets)].sort((a, b) => a - b), maxFrames, runs };
}

/** Says at once, before the cases are asked, when their gold is too narrow for the ratios over BM25 to mean much. */
function warnIfNarrow(context: RunContext, cases: readonly EvalCase[]): void {
  const spread = goldSpread(cases, context.maxFrames);
  if (!spread.narrow) return;
  context.warn(`narrow gold, read the ratios over BM25 with care (docs/eval.md): ${spread.reasons.join("; ")}`);
}

/**
 * Runs an evaluation: mines or reads the cases, asks the provider each goal under each
 * budget over the case's tree, runs the BM25 baseline beside it, and returns the report.
 * Deterministic in everything but the provider's own answers and the latencies.
 */
export async function runEval(options: EvalOptions): Promise<EvalReport> {
  const began = performance.now();
  const { budgets, maxFrames, runs } = checkOptions(options);
  const tokenizer = options.tokenizer ?? "o200k_base";
  const context: RunContext = {
    options,
    budgets,
    maxFrames,
    runs,
    counter: createTokenCounter({ tokenizer }),
    timeoutMs: options.queryTimeoutMs ?? EVAL_DEFAULTS.queryTimeoutMs,
    // A warning may quote the provider's stderr or a commit: shown, never able to drive the terminal.
    warn: options.warn ?? ((message) => process.stderr.write(`ocp eval: ${terminalLines(message)}\n`)),
    started: false,
  };
  const { source } = options;
  let cases: CaseResult[];
  let sourceReport: EvalReport["source"];
  if (source.kind === "git") {
    const rev = source.rev ?? "HEAD";
    const info = await openRepository(source.repo, rev);
    const wanted = source.cases ?? EVAL_DEFAULTS.cases;
    const mined: { cases: EvalCase[]; stats: MineStats } = await mineCases(source.repo, {
      rev: info.head,
      cases: wanted,
      seed: source.seed,
    });
    if (mined.cases.length === 0) {
      const shallow = info.shallow
        ? " It is a shallow clone: fetch its history (git fetch --unshallow) and run again."
        : "";
      throw new OcpError(
        ERROR_CODES.EVAL,
        `no commit of '${source.repo}' at ${rev} qualifies as a case (${mined.stats.scanned} looked at; see docs/eval.md for the rules).${shallow}`,
      );
    }
    if (info.shallow) {
      context.warn(
        `'${source.repo}' is a shallow clone: cases come only from the history it has (git fetch --unshallow for more)`,
      );
    }
    if (mined.cases.length < wanted) {
      context.warn(
        `only ${mined.cases.length} of the ${wanted} cases asked for qualify (${mined.stats.scanned} commits looked at)`,
      );
    }
    warnIfNarrow(context, mined.cases);
    cases = await evalMined(context, source.repo, mined.cases);
    sourceReport = {
      kind: "git",
      repo: source.repo,
      rev,
      head: info.head,
      shallow: info.shallow,
      seed: source.seed,
      mining: mined.stats,
    };
  } else {
    const list = typeof source.cases === "string" ? readLabelledCases(source.cases) : [...source.cases];
    if (list.length === 0) throw new OcpError(ERROR_CODES.EVAL, "no labelled case given");
    warnIfNarrow(context, list);
    cases = await evalLabelled(context, source.root, list);
    sourceReport = {
      kind: "labelled",
      root: source.root,
      file: typeof source.cases === "string" ? source.cases : undefined,
    };
  }
  const { summary, spread } = summarize(cases, budgets, runs);
  return {
    tool: "ocp eval",
    provider: { command: commandText(options.provider), name: context.name, version: context.version },
    source: sourceReport,
    budgets,
    maxFrames,
    runs,
    tokenizer,
    heldOutRule: HELD_OUT_RULE,
    cases,
    summary,
    spread,
    goldSpread: goldSpread(cases, maxFrames),
    elapsedMs: Math.round(performance.now() - began),
  };
}
