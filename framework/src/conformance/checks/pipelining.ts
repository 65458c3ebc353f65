/**
 * pipelining: queries asking for 0, 1, 2 and 3 frames, written at once, get as
 * many replies, each equal (by frame ids) to the one-at-a-time answer in the same
 * position: replies come in request order.
 */
import { framesOf, verdict, whyNotFrames } from "./shared/frames.js";
import { firstMismatch, idLists, type PipelineRun } from "./shared/main-session.js";
import { defineQueryCheck } from "./shared/query-check.js";

/** Judges the pipelining step of the main session. */
export function pipeliningVerdict({ batch, alone, together }: PipelineRun) {
  const failed = alone.find((exchange) => framesOf(exchange.reply) === undefined);
  if (failed !== undefined || together === undefined) {
    return verdict("fail", `a query sent alone was not answered: ${whyNotFrames((failed ?? alone[0])!.reply)}`);
  }
  const missing = together.find((exchange) => framesOf(exchange.reply) === undefined);
  if (missing !== undefined) {
    return verdict("fail", `${batch.length} queries written at once: ${whyNotFrames(missing.reply)}`);
  }
  const expected = idLists(alone);
  const got = idLists(together);
  const i = firstMismatch(alone, together);
  if (i !== -1) {
    const at = got.findIndex((list) => JSON.stringify(list) === JSON.stringify(expected[i]));
    const hint = at !== -1 && at !== i ? ` (it came back as reply ${at + 1})` : "";
    return verdict(
      "fail",
      `${batch.length} queries written at once: reply ${i + 1} is not the answer to query ${i + 1} (max_frames ${i})${hint}; replies must come in request order`,
    );
  }
  const distinct = new Set(expected.map((list) => JSON.stringify(list))).size;
  const order =
    distinct > 1
      ? `in request order (frame counts ${expected.map((list) => list.length).join(", ")})`
      : "(order not distinguishable: the goal matched fewer than two frames)";
  return verdict("pass", `${batch.length} queries written at once got ${batch.length} replies ${order}`);
}

/** The pipelining check. */
export const pipelining = defineQueryCheck({
  name: "pipelining",
  appliesTo: ["stdio"],
  elsewhere: "stdio only: over HTTP each request has its own reply",
  judge: (run) =>
    run.pipelining !== undefined
      ? pipeliningVerdict(run.pipelining)
      : verdict("skip", "stdio only: over HTTP each request has its own reply"),
});
