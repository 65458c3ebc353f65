/**
 * The shapes of an `ocp eval` run: what it is asked to do and the report it returns
 * (which `--json` prints as is).
 */
import type { TokenizerName } from "../tokens/counter.js";
import type { Hunk, LineMetrics } from "./lines.js";
import type { EvalCase, MineStats } from "./mine.js";
import type { Metrics } from "./score.js";
import type { GoldSpread } from "./spread.js";

/** A command line; `{root}` in any argument becomes the tree's root, `{cache}` a scratch directory of that tree. */
export interface CommandLine {
  readonly command: string;
  readonly args: readonly string[];
}

/** Where the cases come from: mined from a git history, or labelled by hand over a root. */
export type EvalSource =
  | {
      readonly kind: "git";
      /** The repository (a checkout, a bare clone or a mirror). */
      readonly repo: string;
      /** The revision whose history is mined; default HEAD. */
      readonly rev?: string;
      /** How many cases; default 60. */
      readonly cases?: number;
      /** Sample the qualifying commits with this seed instead of taking the most recent. */
      readonly seed?: string;
    }
  | {
      readonly kind: "labelled";
      /** The directory the provider serves and the gold paths are relative to. */
      readonly root: string;
      /** A JSONL file of `{ goal, gold }`, or the cases themselves. */
      readonly cases: string | readonly EvalCase[];
    };

/** What one finished case says about progress. */
export interface EvalProgress {
  readonly done: number;
  readonly total: number;
  /** The case just finished. */
  readonly caseId: string;
  /** Its file recall at the middle budget, ours and BM25's (for a progress line). */
  readonly recall?: { readonly ours: number; readonly bm25?: number };
  /** Its hunk recall at the middle budget, ours and BM25's; null for a case with no line-level gold. */
  readonly hunkRecall?: { readonly ours: number | null; readonly bm25?: number | null };
  /**
   * Milliseconds since the first case began (trees, prepare command, provider start and
   * queries included): `elapsedMs / done` is the mean per case an estimate of the time
   * left goes by.
   */
  readonly elapsedMs?: number;
}

/** Options of {@link runEval}. */
export interface EvalOptions {
  /** The provider under test, spawned over stdio once per tree (and per run). */
  readonly provider: CommandLine;
  /** Run once per tree before the provider starts, e.g. to build its index; must exit 0. */
  readonly prepare?: CommandLine;
  readonly source: EvalSource;
  /** Token budgets each goal is asked under; default 2048, 4096, 8192. */
  readonly budgets?: readonly number[];
  /** `max_frames` of every query; default 10, what the MCP bridge's tool asks when the agent gives none. */
  readonly maxFrames?: number;
  /** How many times each case is asked (the same process, the same queries again); default 1. */
  readonly runs?: number;
  /** Run the BM25 baseline beside it; default true. */
  readonly baseline?: boolean;
  /** The tokenizer the baseline packs with and gold files are counted with; default o200k_base. */
  readonly tokenizer?: TokenizerName;
  /** Bound on one query; default 60 000 ms. */
  readonly queryTimeoutMs?: number;
  /** Bound on the prepare command; default 600 000 ms. */
  readonly prepareTimeoutMs?: number;
  /** Keep trees (and `{cache}`) here and reuse them in the next run; default a temporary directory, removed. */
  readonly workDir?: string;
  /** Query a provider that declares `data_flow.egress`; default false (refused, as a host without consent would). */
  readonly allowEgress?: boolean;
  /** Called after each case. */
  readonly onProgress?: (progress: EvalProgress) => void;
  /** Warnings (a shallow clone, a failed case); default stderr. */
  readonly warn?: (message: string) => void;
}

/** One frame as the report shows it. */
export interface ShippedFrame {
  /** What it cites: `path#Lstart-end`, a path, or a URI. */
  readonly ref: string;
  readonly tokens: number;
  /** True when it cites a gold entry. */
  readonly gold: boolean;
  /** True when its line range overlaps one of the case's hunks. */
  readonly hunk: boolean;
}

/** One side's answer to one case under one budget. */
export interface Answer extends Metrics, LineMetrics {
  /** Σ token_cost shipped. */
  readonly tokens: number;
  /** From sending the query to reading the reply (ours), or ranking and packing (BM25). */
  readonly latencyMs: number;
  readonly frames: readonly ShippedFrame[];
  /** Why there is no answer (the query failed); the metrics are then 0. */
  readonly error?: string;
}

/** One case under one budget. */
export interface CaseBudget {
  readonly budget: number;
  /** Each run's answer, in run order. */
  readonly ours: readonly Answer[];
  /** The mean of the runs' metrics. */
  readonly oursMean: MeanMetrics;
  /** True when the runs shipped different frames. */
  readonly changed: boolean;
  readonly bm25?: Answer;
}

/** The mean of several answers' metrics, tokens and latency. */
export interface MeanMetrics extends Metrics, LineMetrics {
  readonly tokens: number;
  readonly latencyMs: number;
}

/** One case of the report. */
export interface CaseResult {
  readonly id: string;
  readonly goal: string;
  readonly gold: readonly string[];
  readonly heldOut: boolean;
  readonly commit?: string;
  readonly parent?: string;
  /** Exact tokens of the gold files together (path entries only); unreachable entries count 0. */
  readonly goldTokens: number;
  /** Gold paths that are not a text file in the tree: no provider can cite them. */
  readonly unreachable: readonly string[];
  /**
   * The lines hunk recall counts: a mined commit's changed hunks in its gold files (at the
   * parent's line numbers), or a labelled case's `path#Lstart-end` gold. Empty: no hunk recall.
   */
  readonly hunks: readonly Hunk[];
  readonly budgets: readonly CaseBudget[];
}

/**
 * Means over the cases of one split under one budget; `hunkRecall` over the cases that
 * have hunks (null when none has).
 */
export interface SideSummary extends Metrics, LineMetrics {
  readonly tokens: number;
  /** Median latency. */
  readonly latencyMs: number;
}

/** One row of the summary: a split (all, tuned, held-out) under one budget. */
export interface SummaryRow {
  readonly split: "all" | "tuned" | "held-out";
  readonly budget: number;
  readonly cases: number;
  /** Cases with line-level gold (hunks): those hunk recall is the mean of. */
  readonly hunkCases: number;
  readonly ours: SideSummary;
  readonly bm25?: SideSummary;
  /** ours / BM25 per metric; null where BM25's is 0. */
  readonly ratio?: {
    readonly recall: number | null;
    readonly hit: number | null;
    readonly mrr: number | null;
    readonly ndcg: number | null;
    readonly hunkRecall: number | null;
    readonly acc1: number | null;
    readonly goldShare: number | null;
  };
  /** Cases whose gold files together do not fit this budget: no answer can ship them whole. */
  readonly goldOverBudget: number;
  /** Queries of ours that failed (counted as empty answers). */
  readonly errors: number;
}

/** How much repeated runs disagreed, per budget. */
export interface SpreadRow {
  readonly budget: number;
  /** Mean recall over all cases, per run. */
  readonly runRecall: readonly number[];
  readonly min: number;
  readonly max: number;
  /** Cases whose shipped frames differed between runs. */
  readonly changedCases: number;
}

/** What {@link runEval} returns. */
export interface EvalReport {
  readonly tool: "ocp eval";
  readonly provider: { readonly command: string; readonly name?: string; readonly version?: string };
  readonly source:
    | {
        readonly kind: "git";
        readonly repo: string;
        readonly rev: string;
        readonly head: string;
        readonly shallow: boolean;
        readonly seed?: string;
        readonly mining: MineStats;
      }
    | { readonly kind: "labelled"; readonly root: string; readonly file?: string };
  readonly budgets: readonly number[];
  readonly maxFrames: number;
  readonly runs: number;
  readonly tokenizer: TokenizerName;
  readonly heldOutRule: string;
  readonly cases: readonly CaseResult[];
  readonly summary: readonly SummaryRow[];
  readonly spread: readonly SpreadRow[];
  /** How widely the gold is spread over files, and whether that is too narrow for the ratios over BM25 to mean much. */
  readonly goldSpread: GoldSpread;
  readonly elapsedMs: number;
}
