/**
 * The stdio suite. One main session answers the handshake and the query checks;
 * every own-session check — those that could leave a provider broken or gone —
 * gets a fresh process, so one failure never decides another check. Sessions run a
 * few at a time, each bounded by its own timeouts, and every process group is
 * killed at the end.
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
import type { StdioTarget } from "../targets.js";
import { StdioSession } from "./conformance-session.js";

/**
 * Each own-session check has a process of its own, so none can break another's; the
 * timed exits go last, measured once the heavier checks no longer load the machine.
 */
const RANKS: HazardRanks = { none: 0, "may-crash": 0, "ends-session": 1 };

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
    const tasks: (() => Promise<void>)[] = [
      async () => {
        try {
          const { reply } = await ctx.main.handshake();
          startup.settle(!reply.ok);
          for (const check of mainSessionChecks(checks)) emit({ name: check.name, ...(await check.run(ctx)) });
        } finally {
          await (ctx.main.session as StdioSession).stop();
        }
      },
      ...inRunOrder(checks, RANKS).map((check) => () => isolated(check, ctx, emit, startup)),
    ];
    // Three at a time: fast on two cores without starving the provider under test.
    // Sessions are opened inside the tasks, so no process starts before its turn.
    await pool(tasks, 3);
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
 * Runs one check on processes of its own, stopped afterwards. Once the provider is
 * known never to answer a handshake, none is started; and a check whose processes
 * got no reply at all, when the main session got none either, is reported not run
 * rather than the same failure again.
 */
async function isolated(check: SuiteCheck, base: CheckContext, emit: Emit, startup: Startup): Promise<void> {
  if (startup.failed) {
    emit({ name: check.name, status: "not-run", evidence: NEVER_STARTED });
    return;
  }
  const opened: StdioSession[] = [];
  const ctx: CheckContext = {
    ...base,
    open: (label) => {
      const session = base.open(label) as StdioSession;
      opened.push(session);
      return session;
    },
  };
  try {
    const result = await runGuarded(check, ctx);
    const neverStarted = opened.length > 0 && opened.every((session) => !session.replied) && (await startup.decided());
    emit(neverStarted ? { name: check.name, status: "not-run", evidence: NEVER_STARTED } : result);
  } finally {
    await Promise.all(opened.map((session) => session.stop()));
  }
}
