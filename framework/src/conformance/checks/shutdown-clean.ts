/**
 * shutdown-clean (R2): over stdio, the provider exits with code 0 within 2 s of a
 * `shutdown` envelope; over HTTP, the main session's `shutdown` is accepted with a 2xx.
 */
import { defineCheck } from "./shared/check.js";
import { exitVerdict } from "./shared/exit-check.js";
import { verdict } from "./shared/frames.js";

/** The shutdown-clean check. */
export const shutdownClean = defineCheck({
  name: "shutdown-clean",
  appliesTo: "every",
  uses: "own-session",
  hazard: "ends-session",
  run: async (ctx) => {
    if (ctx.target.transport === "stdio") return exitVerdict(ctx, "shutdown");
    // Over HTTP the session to end is the main one (its OCP-Session header).
    const reply = await ctx.main.session.request({ type: "shutdown" }, "shutdown", ctx.queryTimeoutMs);
    const status = reply.status;
    if (status !== undefined && status >= 200 && status < 300) {
      return verdict("pass", `shutdown accepted with HTTP ${status}`);
    }
    const why = status !== undefined ? `HTTP ${status}` : (reply as { reason: string }).reason;
    return verdict("fail", `shutdown was not accepted: ${why}`);
  },
});
