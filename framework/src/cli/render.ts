/**
 * Human-readable rendering of query results for the terminal: what `ocp query`
 * found, where (as `path:line`, which terminals and editors open), and what it says.
 * A frame is untrusted: its control and bidi characters are shown as � (see
 * `terminalText`), so its text can neither drive the terminal nor read reordered.
 */
import pc from "picocolors";
import { terminalText } from "../provider/display-text.js";
import { uriToDisplayPath } from "../provider/frames.js";
import type { ContextFrame, ContextQueryResult } from "../wire/schemas.js";

/** Options of {@link renderFrames}. */
export interface RenderOptions {
  /** The query's budget, shown beside the running total. */
  maxTokens: number;
  /** Colour output, and highlight the goal's terms in the content. */
  color: boolean;
  /** The words to highlight: the goal (and query text). */
  goal?: string;
  /** Show every line of each frame's content rather than its first {@link PREVIEW_LINES}. */
  full?: boolean;
  /** Paths are shown relative to this directory when inside it (default: the working directory). */
  cwd?: string;
}

/** How many lines of a frame's content `ocp query` shows without `--full`. */
export const PREVIEW_LINES = 6;
/** Longer lines are cut in a preview (never with `--full`). */
const PREVIEW_WIDTH = 160;

/** Words too common to be worth highlighting. */
const COMMON = new Set(
  "the and are was were how what why when where which who does did for from into with that this there then than have has had not but can could should would will about your you its it's our".split(
    " ",
  ),
);

/**
 * The goal's terms as one case-insensitive pattern, or undefined if none is worth
 * highlighting. A plural's trailing "s" is dropped so "costs" also marks "cost".
 */
export function highlightPattern(goal: string): RegExp | undefined {
  const terms = new Set<string>();
  for (const word of goal.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? []) {
    if ([...word].length < 3 || COMMON.has(word)) continue;
    terms.add(word.length > 4 && word.endsWith("s") ? word.slice(0, -1) : word);
  }
  if (terms.size === 0) return undefined;
  const escaped = [...terms].sort((a, b) => b.length - a.length).map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  return new RegExp(`(?<![\\p{L}\\p{N}_])(?:${escaped.join("|")})`, "giu");
}

/**
 * Where a frame's content comes from, as a terminal opens it: `docs/tokens.md:12`
 * for a file with a line range, else its uri (and range).
 */
export function frameLocation(frame: ContextFrame, cwd: string): string | undefined {
  const source = frame.provenance.find((p) => p.uri !== undefined && p.range !== undefined) ?? frame.provenance[0];
  const uri = source?.uri ?? frame.uri;
  if (uri === undefined) return undefined;
  const range = source?.uri === uri ? source.range : undefined;
  if (uri.startsWith("file:")) {
    const line = range === undefined ? undefined : /^L(\d+)/.exec(range)?.[1];
    const path = uriToDisplayPath(uri, cwd);
    return line === undefined ? path : `${path}:${line}`;
  }
  return range === undefined ? uri : `${uri} ${range}`;
}

/**
 * One block per frame — rank, kind, score, cost, running total against the budget,
 * title; where it comes from and its citation; its first lines (all with `full`) —
 * then a summary line.
 */
export function renderFrames(result: ContextQueryResult, options: RenderOptions): string {
  const c = pc.createColors(options.color);
  const cwd = options.cwd ?? process.cwd();
  const mark = options.color && options.goal !== undefined ? highlightPattern(options.goal) : undefined;
  const lines: string[] = [];
  let total = 0;
  const width = String(options.maxTokens).length;
  result.frames.forEach((frame, index) => {
    total += frame.token_cost;
    const rank = `${index + 1}.`.padStart(3);
    const budget = `${String(total).padStart(width)}/${options.maxTokens}`;
    lines.push(
      `${c.bold(rank)} ${c.cyan(frame.kind.padEnd(7))} score ${frame.score.toFixed(2)}  ` +
        `${String(frame.token_cost).padStart(5)} tok  ${c.dim(`[${budget}]`)}  ${c.bold(terminalText(frame.title))}`,
    );
    const location = frameLocation(frame, cwd);
    const label = frame.citation_label === undefined ? c.red("(none)") : terminalText(frame.citation_label);
    const cite = `${c.dim("cite:")} ${label}`;
    lines.push(`    ${location === undefined ? cite : `${c.underline(terminalText(location))}  ${cite}`}`);
    lines.push(...contentLines(frame.content, options.full === true, c, mark));
    if (index < result.frames.length - 1) lines.push("");
  });
  const truncation = result.truncated
    ? c.yellow(
        `truncated${result.dropped_estimate !== undefined ? `, ~${result.dropped_estimate} more not shipped` : ""}`,
      )
    : "complete";
  if (result.frames.length > 0) lines.push("");
  lines.push(
    `${result.frames.length} frame${result.frames.length === 1 ? "" : "s"} · ${total} / ${options.maxTokens} tokens · ${truncation}`,
  );
  return `${lines.join("\n")}\n`;
}

/** The content under a gutter, its first lines unless `full`, with the goal's terms marked. */
function contentLines(
  content: string,
  full: boolean,
  c: ReturnType<typeof pc.createColors>,
  mark: RegExp | undefined,
): string[] {
  const all = content.replace(/\n$/, "").split("\n");
  const shown = full ? all : all.slice(0, PREVIEW_LINES);
  const gutter = c.dim("    │ ");
  const out = shown.map((raw) => {
    let line = terminalText(raw.replace(/\r$/, ""));
    if (!full && [...line].length > PREVIEW_WIDTH) line = `${[...line].slice(0, PREVIEW_WIDTH - 1).join("")}…`;
    return `${gutter}${mark === undefined ? line : line.replace(mark, (term) => c.bold(c.yellow(term)))}`;
  });
  const hidden = all.length - shown.length;
  if (hidden > 0) out.push(c.dim(`    … ${hidden} more line${hidden === 1 ? "" : "s"} (--full shows all)`));
  return out;
}
