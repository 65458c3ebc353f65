/**
 * `ocp-provider/eval`: measure whether the frames a provider ships under a budget are
 * the right ones — cases mined from a git history (goal = a commit's message, gold = the
 * source files it changed, tree = its parent) or labelled by hand, scored by file recall,
 * acc@1, hit, MRR and nDCG, and at line level by hunk recall and the share of tokens in
 * gold files, beside a BM25 baseline over the same tree. `ocp eval` is its command.
 */
export { Bm25Baseline, type ShippedWindow, WINDOW_LINES, type Window, windowsOf } from "./baseline.js";
export { listTextFiles, type TextFile } from "./files.js";
export { readLabelledCases } from "./labelled.js";
export {
  commitHunks,
  covers,
  goldHunks,
  type Hunk,
  type LineMetrics,
  lineMetrics,
  parseHunks,
  type ScoredFrame,
} from "./lines.js";
export { type EvalCase, type MineOptions, type MineStats, mineCases } from "./mine.js";
export { markdownTable, renderReport, spreadLines } from "./render.js";
export { HELD_OUT_RULE, summarize } from "./report.js";
export { excludedContent, excludedPath, filteredMessage, goalFromMessage, heldOut } from "./rules.js";
export { EVAL_DEFAULTS, runEval } from "./run.js";
export {
  citedGold,
  cites,
  type FrameRef,
  frameRefs,
  type Gold,
  type Metrics,
  parseGold,
  scoreAnswer,
} from "./score.js";
export { type GoldCount, type GoldSpread, goldSpread, NARROW_TOP_SHARE } from "./spread.js";
export { type Tree, TreeCache, writeTree } from "./trees.js";
export type * from "./types.js";
