/**
 * Snippet windows: the lines around matches that ship together.
 *
 * Each match gets `context` lines on each side; windows that overlap or touch are
 * merged, as long as the merged window stays within `maxLines`. A window never
 * includes a blocked line (one too long to ship, or one rg did not return), never
 * leaves the file, and windows never overlap.
 */

/** One snippet: a range of whole lines and the match lines it holds. */
export interface SnippetWindow {
  /** First line, 1-based. */
  readonly start: number;
  /** Last line, inclusive. */
  readonly end: number;
  /** The match lines inside, ascending. */
  readonly matches: readonly number[];
}

/** Options of {@link mergeWindows}. */
export interface WindowOptions {
  /** Lines of context on each side of a match. */
  context: number;
  /** The most lines one window may hold (at least 1). */
  maxLines: number;
  /** The file's last line: no window reaches past it. */
  lastLine: number;
  /** Lines no window may contain; a blocked match line is dropped. */
  isBlocked?: (line: number) => boolean;
}

/** Builds the windows for a file's match lines (any order, duplicates allowed). */
export function mergeWindows(matchLines: readonly number[], options: WindowOptions): SnippetWindow[] {
  const { context, lastLine } = options;
  const maxLines = Math.max(1, Math.floor(options.maxLines));
  const blocked = options.isBlocked ?? (() => false);
  // rg reports match lines ascending: only other input needs sorting and de-duplicating.
  const ascending = matchLines.every((line, i) => i === 0 || line > (matchLines[i - 1] as number));
  const lines = (ascending ? matchLines : [...new Set(matchLines)].sort((a, b) => a - b)).filter(
    (line) => Number.isInteger(line) && line >= 1 && line <= lastLine && !blocked(line),
  );

  const windows: { start: number; end: number; matches: number[] }[] = [];
  let current: { start: number; end: number; matches: number[] } | undefined;
  for (const line of lines) {
    // The match's own reach: up to `context` lines each way, stopping at a blocked line or the file's edge.
    let low = line;
    while (low > 1 && line - low < context && !blocked(low - 1)) low--;
    let high = line;
    while (high < lastLine && high - line < context && !blocked(high + 1)) high++;

    if (current !== undefined && line <= current.end) {
      // Already inside: grow the window toward the match's reach, within maxLines.
      current.matches.push(line);
      current.end = Math.max(current.end, Math.min(high, current.start + maxLines - 1));
      continue;
    }
    if (current !== undefined && low <= current.end + 1 && high - current.start + 1 <= maxLines) {
      current.matches.push(line);
      current.end = high;
      continue;
    }
    let start = current !== undefined ? Math.max(low, current.end + 1) : low;
    let end = high;
    if (end - start + 1 > maxLines) {
      // Too long alone (context wider than maxLines): centre it on the match.
      start = Math.max(start, line - Math.floor((maxLines - 1) / 2));
      end = Math.min(end, start + maxLines - 1);
    }
    current = { start, end, matches: [line] };
    windows.push(current);
  }
  return windows;
}

/**
 * Budget tokens per line of window: a window of `maxTokens` / 100 lines costs about a tenth
 * of the budget (a line of code is ~10 tokens), so about ten windows share it.
 */
export const TOKENS_PER_LINE_BUDGET = 100;
/** The fewest lines a window is held to by a small budget: a definition's head and a few lines of its body. */
export const MIN_BUDGET_WINDOW_LINES = 8;

/**
 * The most lines one window may hold under a budget of `maxTokens`: `maxTokens` / 100
 * (at 2048 tokens, 20 lines, ~200 tokens), at least 8, at most `maxLines`. The packer
 * ships best first and cuts only the last frame, so windows of 40 lines under 2048
 * tokens cite five or six files; windows sized to the budget let ten or more share it,
 * and file recall counts files.
 */
export function budgetWindowLines(maxTokens: number, maxLines: number): number {
  const sized = Math.floor(maxTokens / TOKENS_PER_LINE_BUDGET);
  return Math.max(1, Math.min(maxLines, Math.max(MIN_BUDGET_WINDOW_LINES, Number.isFinite(sized) ? sized : maxLines)));
}
