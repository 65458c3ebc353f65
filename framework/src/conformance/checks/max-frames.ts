/** max-frames: no reply carries more frames than its query's max_frames. */
import { allFrames, type Exchange, framesOf, needFrames, noFrames, summarise, verdict } from "./shared/frames.js";
import { defineQueryCheck } from "./shared/query-check.js";

/** Judges the frame count of every reply. */
export function maxFrames(exchanges: readonly Exchange[]) {
  const missing = needFrames(exchanges, ["max-frames"]);
  if (missing) return missing;
  if (allFrames(exchanges).length === 0) return noFrames(exchanges);
  const violations: string[] = [];
  for (const exchange of exchanges) {
    const frames = framesOf(exchange.reply);
    if (frames !== undefined && frames.length > exchange.query.max_frames) {
      violations.push(`max_frames ${exchange.query.max_frames}: ${frames.length} frames came back`);
    }
  }
  if (violations.length > 0) return verdict("fail", summarise(violations));
  const probes = exchanges
    .filter((e) => e.purpose === "max-frames")
    .map((e) => `max_frames ${e.query.max_frames} → ${framesOf(e.reply)?.length ?? "error"}`);
  return verdict("pass", `every reply within its max_frames (${probes.join(", ")})`);
}

/** The max-frames check. */
export const maxFramesCheck = defineQueryCheck({
  name: "max-frames",
  appliesTo: "every",
  judge: (run) => maxFrames(run.exchanges),
});
