/** cost-honesty: each frame's content re-counted; an under-reported cost fails, an over-report is reported. */
import type { TokenCounter } from "../../tokens/counter.js";
import {
  allFrames,
  type Exchange,
  isCount,
  nameFrame,
  needFrames,
  noFrames,
  summarise,
  verdict,
} from "./shared/frames.js";
import { defineQueryCheck } from "./shared/query-check.js";

/** Re-counts every distinct frame with `counter`. */
export function costHonesty(exchanges: readonly Exchange[], counter: TokenCounter) {
  const missing = needFrames(exchanges);
  if (missing) return missing;
  const frames = allFrames(exchanges);
  if (frames.length === 0) return noFrames(exchanges);
  const under: string[] = [];
  const over: string[] = [];
  const seen = new Set<string>();
  for (const { frame, index } of frames) {
    const key = JSON.stringify([frame.id, frame.content, frame.token_cost]);
    if (seen.has(key)) continue;
    seen.add(key);
    const name = nameFrame(frame, index);
    if (typeof frame.content !== "string" || !isCount(frame.token_cost)) {
      under.push(`${name}: cannot re-count (content or token_cost missing)`);
      continue;
    }
    const count = counter.count(frame.content);
    if (frame.token_cost < count)
      under.push(`${name}: token_cost ${frame.token_cost} < ${counter.tokenizer} count ${count}`);
    else if (frame.token_cost > count)
      over.push(`${name}: token_cost ${frame.token_cost} > ${counter.tokenizer} count ${count}`);
  }
  if (under.length > 0) return verdict("fail", summarise(under));
  const overNote = over.length > 0 ? `; ${over.length} over-reported (${summarise(over)})` : "";
  return verdict(
    "pass",
    `${seen.size} distinct frames re-counted with ${counter.tokenizer}: no cost under-reported${overNote}`,
  );
}

/** The cost-honesty check. */
export const costHonestyCheck = defineQueryCheck({
  name: "cost-honesty",
  appliesTo: "every",
  judge: (run, ctx) => costHonesty(run.exchanges, ctx.counter),
});
