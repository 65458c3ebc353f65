/**
 * The stdio suite. One main session answers the handshake and the query checks; the
 * own-session checks — those that could leave a provider broken or gone — run one
 * after another beside it, each on a process no failed check has used: one that
 * earlier checks passed on and left running (spare-sessions.ts), or a fresh one. A
 * clean provider is checked on two processes; a check that fails on a used one is run
 * again on a fresh one, so one failure never decides another check. Every session is
 * bounded by its own timeouts, and every process group is killed at the end.
 *
 * A provider that never answers a handshake (it cannot start, dies at once, or stays
 * silent) fails `handshake` with the reason, once; every other check is `not-run`, and
 * the sessions not yet started are not started.
 */
import type { CheckContext } from "../../conformance/checks/shared/check.js";
import { NEVER_STARTED } from "../../conformance/checks/shared/main-session.js";
import {
  type Emit,
  type HazardRanks,
  inRunOrder,
  mainSessionChecks,
  runGuarded,
  type SuiteCheck,
  type TransportSuite,
} from "../../conformance/suite.js";
import type { CheckResult } from "../../conformance/types.js";
import type { StdioTarget } from "../targets.js";
import { StdioSession } from "./conformance-session.js";
import { SpareSessions } from "./spare-sessions.js";

/**
 * The checks that end their process go last, when the others have no more use for one.
 * Within a rank, those that need a fresh process first: the others then use it (fresh ones
 * are put first, and inRunOrder's stable sort by rank keeps them so).
 */
const RANKS: HazardRanks = { none: 0, "may-crash": 0, "ends-session": 1 };
const runOrder = (checks: readonly SuiteCheck[]): SuiteCheck[] =>
  inRunOrder(
    [...checks].sort((a, b) => Number(b.fresh === true) - Number(a.fresh === true)),
    RANKS,
  );

/** What the main session's handshake showed, for the checks on other sessions. */
class Startup {
  /** Set once the main session's handshake got no reply at all. */
  failed = false;
  readonly #decided: Promise<boolean>;
  #decide: (failed: boolean) => void = () => {};

  constructor() {
    this.#decided = new Promise((resolve) => {
      this.#decide = resolve;
    });
  }

  /** Records whether the main session's handshake went unanswered. */
  settle(failed: boolean): void {
    this.failed ||= failed;
    this.#decide(failed);
  }

  /** Resolves with whether the provider never answered the main session's handshake. */
  decided(): Promise<boolean> {
    return this.#decided;
  }
}

/** The stdio suite. */
export const stdioSuite: TransportSuite<StdioTarget> = {
  open: (target, label, log) => new StdioSession(target, label, log),
  leave: async (session) => {
    const stderr = (session as StdioSession).stderr();
    await (session as StdioSession).stop();
    return stderr;
  },
  run: async (checks, ctx, emit) => {
    const startup = new Startup();
    const spares = new SpareSessions();
    const main = spares.hold(ctx.main.session as StdioSession);
    let mainDone = () => {};
    const mainChecked = new Promise<void>((resolve) => {
      mainDone = resolve;
    });
    const tasks: (() => Promise<void>)[] = [
      async () => {
        let passed = false;
        try {
          const { reply } = await ctx.main.handshake();
          startup.settle(!reply.ok);
          passed = reply.ok;
          for (const check of mainSessionChecks(checks)) {
            const result: CheckResult = { name: check.name, ...(await check.run(ctx)) };
            emit(result);
            passed &&= result.status === "pass" || result.status === "skip";
          }
        } finally {
          await spares.giveBack(main, passed);
          mainDone();
        }
      },
      ...runOrder(checks).map((check) => () => ownSession(check, ctx, emit, startup, spares, mainChecked)),
    ];
    // Two lanes: the main session's checks, and the own-session checks one after another
    // (they hand their process on). Sessions are opened inside the tasks, so no process
    // starts before its turn.
    try {
      await pool(tasks, 2);
    } finally {
      await spares.stopAll();
    }
  },
};

/** Runs tasks `width` at a time; all of them run to the end (no process outlives the run) before a failure is rethrown. */
async function pool(tasks: readonly (() => Promise<void>)[], width: number): Promise<void> {
  let next = 0;
  const failures: unknown[] = [];
  const worker = async () => {
    while (next < tasks.length) {
      try {
        await (tasks[next++] as () => Promise<void>)();
      } catch (error) {
        failures.push(error);
      }
    }
  };
  await Promise.all(Array.from({ length: width }, worker));
  if (failures.length > 0) throw failures[0];
}

/**
 * Runs one own-session check on a process earlier checks passed on, or a fresh one, and
 * again on a fresh one if it fails on a used one (unless it hangs as the main session
 * did). Once the provider is known never to answer a handshake, none is started.
 */
async function ownSession(
  check: SuiteCheck,
  base: CheckContext,
  emit: Emit,
  startup: Startup,
  spares: SpareSessions,
  mainChecked: Promise<void>,
): Promise<void> {
  const lent = startup.failed || check.fresh === true ? undefined : await spares.take();
  if (startup.failed) {
    if (lent !== undefined) await spares.giveBack(lent, false);
    emit({ name: check.name, status: "not-run", evidence: NEVER_STARTED });
    return;
  }
  const result = await attempt(check, base, startup, spares, lent);
  // A request left unanswered on a used process, when the main session (which only ever got
  // a handshake and queries) left one unanswered too: the provider hangs on its own, and a
  // fresh process would only wait out the same timeout again.
  // (Once the main session's checks are done: on a loaded machine its queries may be behind.)
  const hangs =
    result.status !== "pass" &&
    lent?.unanswered === true &&
    (await mainChecked.then(() => (base.main.session as StdioSession).unanswered));
  emit(
    lent === undefined || result.status === "pass" || hangs
      ? result
      : await attempt(check, base, startup, spares, undefined),
  );
}

/**
 * One run of a check, its first session `lent` (else a fresh process). A check whose
 * processes got no reply at all, when the main session got none either, is reported not
 * run rather than the same failure again. Its processes are given back: kept for the next
 * check only if it passed and did not end its one process.
 */
async function attempt(
  check: SuiteCheck,
  base: CheckContext,
  startup: Startup,
  spares: SpareSessions,
  lent: StdioSession | undefined,
): Promise<CheckResult> {
  const opened: StdioSession[] = [];
  const ctx: CheckContext = {
    ...base,
    open: (label) => {
      let session: StdioSession;
      if (lent !== undefined && opened.length === 0) {
        lent.relabel(label);
        session = lent;
      } else session = spares.hold(base.open(label) as StdioSession);
      opened.push(session);
      return session;
    },
  };
  let result: CheckResult | undefined;
  try {
    result = await runGuarded(check, ctx);
    const neverStarted = opened.length > 0 && opened.every((session) => !session.replied) && (await startup.decided());
    return neverStarted ? { name: check.name, status: "not-run", evidence: NEVER_STARTED } : result;
  } finally {
    const keep = result?.status === "pass" && check.hazard !== "ends-session" && opened.length === 1;
    if (lent !== undefined && !opened.includes(lent)) await spares.giveBack(lent, true);
    await Promise.all(opened.map((session) => spares.giveBack(session, keep)));
  }
}
