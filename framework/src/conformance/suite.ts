/**
 * What a transport's suite is: how it opens a session on its target, and how it
 * runs the checks that apply to it — in what order, how many at once, on which
 * processes. The checks themselves are modules under `checks/`.
 */
import { describeError } from "../provider/errors.js";
import type { HttpSession } from "../transports/http/conformance-session.js";
import type { StdioSession } from "../transports/stdio/conformance-session.js";
import type { ConformanceTarget } from "../transports/targets.js";
import type { RegisteredCheckName } from "./checks/index.js";
import type { Check, CheckContext } from "./checks/shared/check.js";
import type { MessageLog } from "./schema.js";
import type { CheckResult } from "./types.js";

/** A registered check. */
export type SuiteCheck = Check<RegisteredCheckName>;

/** Records a check's result (and reports progress). */
export type Emit = (result: CheckResult) => void;

/** One transport's suite. */
export interface TransportSuite<Target extends ConformanceTarget = ConformanceTarget> {
  /** Opens a session on `target` (over stdio, a fresh process); every message it receives goes to `log`. */
  readonly open: (target: Target, label: string, log: MessageLog) => StdioSession | HttpSession;
  /**
   * Leaves a session opened with {@link open} the way a host would, and returns what
   * the provider wrote to stderr meanwhile (over HTTP, nothing): over stdio its process
   * is stopped, over HTTP a `shutdown` is sent.
   */
  readonly leave: (session: StdioSession | HttpSession) => Promise<string>;
  /**
   * Runs `checks` (those of the registry that apply, in report order, the whole-run
   * ones left out), emitting each result; stops every process it started.
   */
  readonly run: (checks: readonly SuiteCheck[], ctx: CheckContext, emit: Emit) => Promise<void>;
}

/** How late each hazard runs: checks of a lower rank first; registry order within a rank. */
export type HazardRanks = Readonly<Record<NonNullable<SuiteCheck["hazard"]> | "none", number>>;

/** The own-session checks in the order `ranks` says. */
export function inRunOrder(checks: readonly SuiteCheck[], ranks: HazardRanks): SuiteCheck[] {
  const rank = (check: SuiteCheck) => ranks[check.hazard ?? "none"];
  return checks.filter((check) => check.uses === "own-session").sort((a, b) => rank(a) - rank(b));
}

/** The checks that judge the main session, in report order (the handshake first). */
export const mainSessionChecks = (checks: readonly SuiteCheck[]): SuiteCheck[] =>
  checks.filter((check) => check.uses === "main-session");

/** Runs a check; a bug in it fails it, saying so, rather than the whole run. */
export async function runGuarded(check: SuiteCheck, ctx: CheckContext): Promise<CheckResult> {
  try {
    return { name: check.name, ...(await check.run(ctx)) };
  } catch (error) {
    return { name: check.name, status: "fail", evidence: `the check itself failed: ${describeError(error)}` };
  }
}
