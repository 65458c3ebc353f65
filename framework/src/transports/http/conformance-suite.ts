/**
 * The HTTP suite: the main session's handshake and query checks, then the
 * own-session checks one after another — the one that ends the session after the
 * others, the one that may crash the provider last — since they all reach one
 * provider. The wire-level stdio checks (malformed lines, garbage, EOF, pipelining)
 * are skipped, as in the reference.
 */
import { NEVER_STARTED } from "../../conformance/checks/shared/main-session.js";
import {
  type HazardRanks,
  inRunOrder,
  mainSessionChecks,
  runGuarded,
  type TransportSuite,
} from "../../conformance/suite.js";
import type { HttpTarget } from "../targets.js";
import { HttpSession } from "./conformance-session.js";

/** One provider serves every check: ending the session comes after the others, what may crash it last. */
const RANKS: HazardRanks = { none: 0, "ends-session": 1, "may-crash": 2 };

/** The HTTP suite. */
export const httpSuite: TransportSuite<HttpTarget> = {
  open: (target, label, log) => new HttpSession(target, label, log),
  leave: async (session) => {
    await session.request({ type: "shutdown" }, "shutdown", 2000);
    return "";
  },
  run: async (checks, ctx, emit) => {
    for (const check of mainSessionChecks(checks)) emit({ name: check.name, ...(await check.run(ctx)) });
    // No HTTP response at all: nothing listens there (or it died). Report that once.
    const { neverAnswered } = await ctx.main.handshake();
    for (const check of inRunOrder(checks, RANKS)) {
      emit(
        neverAnswered ? { name: check.name, status: "not-run", evidence: NEVER_STARTED } : await runGuarded(check, ctx),
      );
    }
  },
};
