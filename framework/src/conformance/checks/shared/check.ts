/**
 * What a conformance check is: one module under `checks/` exporting a {@link Check},
 * registered once in `checks/index.ts`. The suite of each transport runs the checks
 * that apply to it and reports every other one skipped, with the check's own reason.
 */
import type { TokenCounter } from "../../../tokens/counter.js";
import type { HttpSession } from "../../../transports/http/conformance-session.js";
import type { StdioSession } from "../../../transports/stdio/conformance-session.js";
import type { ConformanceTarget, TargetTransport } from "../../../transports/targets.js";
import type { MessageLog } from "../../schema.js";
import type { MainSession } from "./main-session.js";
import type { CheckStatus, CheckVerdict } from "./verdict.js";

export type { CheckStatus, CheckVerdict };

/**
 * Where a check gets its replies:
 * - `main-session`: it judges the one main session's handshake and probe queries
 *   (`ctx.main`, run once per run however many checks read it);
 * - `own-session`: it talks to the provider itself (over stdio, on a process no
 *   failed check has used, so one failure never decides another check: see the stdio
 *   suite);
 * - `whole-run`: it judges everything the provider sent, after every other check.
 */
export type CheckUses = "main-session" | "own-session" | "whole-run";

/**
 * What an own-session check may do to the provider: where checks share one provider
 * (HTTP, and over stdio the processes checks hand on), those that end the session run
 * after the others; over HTTP those that may crash it run last.
 */
export type CheckHazard = "ends-session" | "may-crash";

/** What a check runs with. */
export interface CheckContext {
  readonly target: ConformanceTarget;
  readonly log: MessageLog;
  readonly counter: TokenCounter;
  readonly goals: readonly string[];
  readonly handshakeTimeoutMs: number;
  readonly queryTimeoutMs: number;
  /** The main session: its handshake and probe queries, each run once. */
  readonly main: MainSession;
  /** Opens a session of the check's own; the suite stops it after the check. */
  readonly open: (label: string) => StdioSession | HttpSession;
}

/** One conformance check. */
export interface Check<Name extends string = string> {
  /** Its name in the report (the reference suite's names for its five). */
  readonly name: Name;
  /** The transports it runs over: `"every"` wire transport (one added later too), or those named. */
  readonly appliesTo: "every" | readonly TargetTransport[];
  /** The evidence of the skip on every other transport (required unless it applies to every one). */
  readonly elsewhere?: string;
  readonly uses: CheckUses;
  readonly hazard?: CheckHazard;
  /**
   * An own-session check whose first message must be the process's first (what it tests
   * is how a provider answers at the start): over stdio it always gets a fresh process.
   */
  readonly fresh?: true;
  /** Runs the check; throwing fails it, saying so (a bug of the suite, never the provider's). */
  readonly run: (ctx: CheckContext) => Promise<CheckVerdict>;
}

/** Declares a check, keeping its name a literal type (so the report's name list is derived). */
export function defineCheck<const Name extends string>(check: Check<Name>): Check<Name> {
  return check;
}

/** Whether `check` runs over `transport`. */
export const appliesTo = (check: Check, transport: TargetTransport): boolean =>
  check.appliesTo === "every" || check.appliesTo.includes(transport);
