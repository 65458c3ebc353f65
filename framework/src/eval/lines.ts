/**
 * Scoring at line level: the lines a change touched (a mined commit's hunks, or a
 * labelled case's `path#Lstart-end` gold) and whether the frames that shipped hold them.
 * File recall says the right files were named; these say whether the evidence shipped:
 * hunk recall, acc@1, and the share of shipped tokens spent in gold files and on hunks.
 */
import { git } from "./git.js";
import type { FrameRef, Gold } from "./score.js";

/** Lines a change touched in one file, 1-based and inclusive, in the numbering of the tree the provider sees. */
export interface Hunk {
  /** Relative to the root, `/`-separated. */
  readonly path: string;
  readonly start: number;
  readonly end: number;
}

const HUNK_HEADER = /^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@/;

/**
 * The hunks of `git diff -U0` output for one file, in the old side's numbering: `-a,b`
 * is lines a..a+b-1 (a change or a deletion); a pure insertion (`-a,0`) sits between
 * lines a and a+1 and counts as both (as line 1 when a is 0, at the top of the file).
 * Only hunk header lines are read: every line of content starts with `+`, `-`, a space
 * or `\`, so no content of the file can pass for a header.
 */
export function parseHunks(diff: string, path: string): Hunk[] {
  const hunks: Hunk[] = [];
  for (const line of diff.split("\n")) {
    const match = HUNK_HEADER.exec(line);
    if (match === null) continue;
    const start = Number(match[1]);
    const count = match[2] === undefined ? 1 : Number(match[2]);
    if (count === 0) hunks.push({ path, start: Math.max(1, start), end: start + 1 });
    else hunks.push({ path, start, end: start + count - 1 });
  }
  return hunks;
}

/**
 * The hunks `commit` made in `paths`, at `parent`'s line numbers: one
 * `git diff -U0` per file, with settings pinned (Myers with git's default indent
 * heuristic, no merging of nearby hunks, no external diff or textconv, literal
 * pathspecs) so a user's git config cannot move them.
 */
export async function commitHunks(
  repo: string,
  parent: string,
  commit: string,
  paths: readonly string[],
): Promise<Hunk[]> {
  const hunks: Hunk[] = [];
  for (const path of paths) {
    const diff = await git(repo, [
      "--literal-pathspecs",
      "diff",
      "-U0",
      "--no-color",
      "--no-ext-diff",
      "--no-textconv",
      "--diff-algorithm=myers",
      "--indent-heuristic",
      "--inter-hunk-context=0",
      parent,
      commit,
      "--",
      path,
    ]);
    hunks.push(...parseHunks(diff, path));
  }
  return hunks;
}

/** A labelled case's line-level gold: its `path#Lstart-end` entries, as hunks. */
export function goldHunks(gold: readonly Gold[]): Hunk[] {
  return gold.flatMap((entry) =>
    entry.path !== undefined && entry.lines !== undefined
      ? [{ path: entry.path, start: entry.lines[0], end: entry.lines[1] }]
      : [],
  );
}

/** True when a frame reference with a line range overlaps `hunk` (sharing a line; adjacent is not enough). */
export function covers(ref: FrameRef, hunk: Hunk): boolean {
  return ref.path === hunk.path && ref.lines !== undefined && ref.lines[0] <= hunk.end && hunk.start <= ref.lines[1];
}

/** True when `ref` names a gold entry's file (or URI), whatever lines or fragment either gives. */
export function inGoldFile(ref: FrameRef, gold: readonly Gold[]): boolean {
  return gold.some((entry) =>
    entry.path !== undefined ? ref.path === entry.path : entry.uri !== undefined && ref.uri === entry.uri,
  );
}

/** The line-level metrics of one answer. */
export interface LineMetrics {
  /** Hunks overlapped by a shipped frame's line range ÷ hunks; null for a case with no line-level gold. */
  readonly hunkRecall: number | null;
  /** 1 when the first shipped frame that names a file (or URI) names a gold one, else 0. */
  readonly acc1: number;
  /** Σ token_cost of frames naming a gold file ÷ Σ token_cost shipped (0 when nothing shipped). */
  readonly goldShare: number;
  /** Σ token_cost of frames overlapping a hunk ÷ Σ token_cost shipped (0 when nothing shipped). */
  readonly hunkShare: number;
}

/** One shipped frame as line scoring sees it: where it points, and what it cost. */
export interface ScoredFrame {
  readonly refs: readonly FrameRef[];
  readonly tokens: number;
}

/**
 * Scores frames (in shipped order) against the gold and the hunks. A frame covers
 * the hunks its line ranges overlap; a frame without a range covers none, however
 * much of the file it holds, since it cannot say which lines it shipped.
 */
export function lineMetrics(
  frames: readonly ScoredFrame[],
  gold: readonly Gold[],
  hunks: readonly Hunk[],
): LineMetrics {
  const covered = new Set<number>();
  let total = 0;
  let inGold = 0;
  let onHunk = 0;
  for (const frame of frames) {
    total += frame.tokens;
    if (frame.refs.some((ref) => inGoldFile(ref, gold))) inGold += frame.tokens;
    let touches = false;
    hunks.forEach((hunk, index) => {
      if (frame.refs.some((ref) => covers(ref, hunk))) {
        covered.add(index);
        touches = true;
      }
    });
    if (touches) onHunk += frame.tokens;
  }
  const first = frames.find((frame) => frame.refs.some((ref) => ref.path !== undefined || ref.uri !== undefined));
  return {
    hunkRecall: hunks.length === 0 ? null : covered.size / hunks.length,
    acc1: first?.refs.some((ref) => inGoldFile(ref, gold)) ? 1 : 0,
    goldShare: total === 0 ? 0 : inGold / total,
    hunkShare: total === 0 ? 0 : onHunk / total,
  };
}

/** Line-level metrics of an answer that never came. */
export function emptyLineMetrics(hunks: readonly Hunk[]): LineMetrics {
  return { hunkRecall: hunks.length === 0 ? null : 0, acc1: 0, goldShare: 0, hunkShare: 0 };
}
