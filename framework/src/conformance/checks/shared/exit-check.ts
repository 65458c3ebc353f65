/** eof-exit and shutdown-clean over stdio: the provider exits with code 0 within 2 s (R2). */
import { describeExit } from "../../../transports/stdio/conformance-session.js";
import type { CheckContext, CheckVerdict } from "./check.js";
import { verdict } from "./frames.js";
import { handshakeFirst, openStdio } from "./own-session.js";

/** How long a provider has to exit after EOF or `shutdown` (R2). */
const EXIT_LIMIT_MS = 2000;

/** Ends a fresh process's input the way `how` says and times its exit. */
export async function exitVerdict(ctx: CheckContext, how: "eof" | "shutdown"): Promise<CheckVerdict> {
  const session = openStdio(ctx, how === "eof" ? "eof session" : "shutdown session");
  const failedHandshake = await handshakeFirst(session, ctx);
  if (failedHandshake) return verdict("not-run", failedHandshake);
  const what = how === "eof" ? "stdin closed" : "a shutdown envelope (stdin left open)";
  if (how === "eof") session.closeInput();
  else session.send({ type: "shutdown" });
  const started = performance.now();
  const exit = await session.waitForExit(EXIT_LIMIT_MS);
  const elapsed = Math.round(performance.now() - started);
  if (exit === undefined) return verdict("fail", `still running ${EXIT_LIMIT_MS} ms after ${what}`);
  if (exit.code !== 0)
    return verdict("fail", `exited with ${describeExit(exit)} ${elapsed} ms after ${what}; a clean end is code 0`);
  return verdict("pass", `exited with code 0, ${elapsed} ms after ${what}`);
}
