/** budget-honesty (B1): Σ token_cost ≤ max_tokens in every reply, including the tight-budget probes. */
import {
  allFrames,
  type Exchange,
  framesOf,
  isCount,
  nameFrame,
  needFrames,
  noFrames,
  type RawFrame,
  summarise,
  verdict,
} from "./shared/frames.js";
import { defineQueryCheck } from "./shared/query-check.js";

/** Judges the sum of costs in every reply against its budget. */
export function budgetHonesty(exchanges: readonly Exchange[]) {
  const missing = needFrames(exchanges, ["budget"]);
  if (missing) return missing;
  if (allFrames(exchanges).length === 0) return noFrames(exchanges);
  const violations: string[] = [];
  let replies = 0;
  for (const exchange of exchanges) {
    const frames = framesOf(exchange.reply);
    if (frames === undefined) continue;
    replies += 1;
    const bad = frames.findIndex((frame) => !isCount(frame.token_cost));
    if (bad !== -1) {
      violations.push(
        `${nameFrame(frames[bad] as RawFrame, bad)}: token_cost ${JSON.stringify(frames[bad]?.token_cost ?? null)} is not a count`,
      );
      continue;
    }
    const total = frames.reduce((sum, frame) => sum + (frame.token_cost as number), 0);
    if (total > exchange.query.max_tokens) {
      violations.push(
        `max_tokens ${exchange.query.max_tokens}: Σ token_cost ${total} over ${frames.length} frames (B1)`,
      );
    }
  }
  if (violations.length > 0) return verdict("fail", summarise(violations));
  const budgets = [...new Set(exchanges.filter((e) => e.purpose === "budget").map((e) => e.query.max_tokens))];
  return verdict(
    "pass",
    `Σ token_cost ≤ max_tokens in all ${replies} replies (tight budgets probed: ${budgets.join(", ")})`,
  );
}

/** The budget-honesty check. */
export const budgetHonestyCheck = defineQueryCheck({
  name: "budget-honesty",
  appliesTo: "every",
  judge: (run) => budgetHonesty(run.exchanges),
});
