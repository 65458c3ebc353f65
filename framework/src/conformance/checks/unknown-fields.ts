/** unknown-fields: a query carrying fields this version does not define is answered; readers ignore them. */
import { framesOf, verdict, whyNotFrames } from "./shared/frames.js";
import { defineQueryCheck } from "./shared/query-check.js";

/** The unknown-fields check. */
export const unknownFields = defineQueryCheck({
  name: "unknown-fields",
  appliesTo: "every",
  judge: ({ unknownFields: exchange }) => {
    const frames = framesOf(exchange.reply);
    if (frames !== undefined) {
      return verdict(
        "pass",
        `a query with unknown fields (envelope and query level) was answered with ${frames.length} frames`,
      );
    }
    return verdict(
      "fail",
      `a query with unknown fields (trace_id, query.x_future_hint, query.priority) was not answered: ${whyNotFrames(exchange.reply)}; readers must ignore fields they do not know`,
    );
  },
});
