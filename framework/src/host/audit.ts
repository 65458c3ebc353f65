/**
 * The host's budget audit (B2): a result that breaks its query's contract is
 * dropped whole, never silently trimmed — a provider that lies about one frame's
 * cost cannot be trusted about the others.
 */
import type { ContextQuery, ContextQueryResult } from "../wire/schemas.js";

/** Σ token_cost over a result's frames. */
export function totalTokenCost(result: Pick<ContextQueryResult, "frames">): number {
  return result.frames.reduce((sum, frame) => sum + frame.token_cost, 0);
}

/**
 * What is wrong with `result` as an answer to `query`, one sentence per violation;
 * empty when it respects the budget (Σ token_cost ≤ max_tokens), the frame limit
 * and the requested kinds.
 */
export function auditResult(
  query: Pick<ContextQuery, "max_tokens" | "max_frames" | "kinds">,
  result: Pick<ContextQueryResult, "frames">,
): string[] {
  const violations: string[] = [];
  const total = totalTokenCost(result);
  if (total > query.max_tokens) {
    violations.push(
      `Σ token_cost ${total} > max_tokens ${query.max_tokens} over ${result.frames.length} frames (budget dishonesty, B1)`,
    );
  }
  if (result.frames.length > query.max_frames) {
    violations.push(`${result.frames.length} frames > max_frames ${query.max_frames}`);
  }
  if (query.kinds.length > 0) {
    const wanted: readonly string[] = query.kinds;
    const stray = result.frames.filter((frame) => !wanted.includes(frame.kind));
    if (stray.length > 0) {
      const kinds = [...new Set(stray.map((frame) => frame.kind))].join(", ");
      violations.push(`${stray.length} frames of kinds not asked for (${kinds}; asked ${query.kinds.join(", ")})`);
    }
  }
  return violations;
}
