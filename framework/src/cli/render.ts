/** Human-readable rendering of query results for the terminal. */
import pc from "picocolors";
import type { ContextQueryResult } from "../wire/schemas.js";

/** Options of {@link renderFrames}. */
export interface RenderOptions {
  /** The query's budget, shown beside the running total. */
  maxTokens: number;
  /** Colour output (only on a TTY). */
  color: boolean;
}

/**
 * One block per frame — rank, kind, score, cost, running total against the budget,
 * title and citation — then a summary line.
 */
export function renderFrames(result: ContextQueryResult, options: RenderOptions): string {
  const c = pc.createColors(options.color);
  const lines: string[] = [];
  let total = 0;
  const width = String(options.maxTokens).length;
  result.frames.forEach((frame, index) => {
    total += frame.token_cost;
    const rank = `${index + 1}.`.padStart(3);
    const budget = `${String(total).padStart(width)}/${options.maxTokens}`;
    lines.push(
      `${c.bold(rank)} ${c.cyan(frame.kind.padEnd(7))} score ${frame.score.toFixed(2)}  ` +
        `${String(frame.token_cost).padStart(5)} tok  ${c.dim(`[${budget}]`)}  ${c.bold(frame.title)}`,
    );
    lines.push(`    ${c.dim("cite:")} ${frame.citation_label ?? c.red("(none)")}`);
  });
  const truncation = result.truncated
    ? c.yellow(
        `truncated${result.dropped_estimate !== undefined ? `, ~${result.dropped_estimate} more not shipped` : ""}`,
      )
    : "complete";
  lines.push(
    `${result.frames.length} frame${result.frames.length === 1 ? "" : "s"} · ${total} / ${options.maxTokens} tokens · ${truncation}`,
  );
  return `${lines.join("\n")}\n`;
}
