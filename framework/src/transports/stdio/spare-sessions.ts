/**
 * Provider processes that conformance checks hand on to one another. Starting a
 * provider is most of what a stdio check costs (a TypeScript entry through tsx, the
 * tokenizer's vocabulary, an index to open: 1–2 CPU-seconds each), and a check that
 * passed leaves a process as good as a fresh one. So a process whose checks all passed,
 * still alive and owing no reply, goes to the next check instead of being stopped; a
 * check that fails on such a process is run again on a fresh one, and that result stands
 * — so no check's failure is ever decided by what another did to the process.
 */
import type { StdioSession } from "./conformance-session.js";

/** The processes between checks: idle ones to lend, and how many checks hold one now. */
export class SpareSessions {
  readonly #idle: StdioSession[] = [];
  #held = 0;
  #waiters: (() => void)[] = [];

  /** Counts `session` as held by a check until it comes back through {@link giveBack}. */
  hold(session: StdioSession): StdioSession {
    this.#held += 1;
    return session;
  }

  /**
   * An idle process for a check to use, now held by it; while none is idle but a check
   * holds one it may give back, waits for that rather than start another. Undefined when
   * no process can come: the check starts its own.
   */
  async take(): Promise<StdioSession | undefined> {
    for (;;) {
      const session = this.#idle.pop();
      if (session !== undefined) {
        if (session.reusable) return this.hold(session);
        void session.stop();
        continue;
      }
      if (this.#held === 0) return undefined;
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
  }

  /**
   * Takes back a held process: idle for the next check if `keep` and it is still fit to
   * be one's own (alive, owing no reply), stopped otherwise.
   */
  async giveBack(session: StdioSession, keep: boolean): Promise<void> {
    this.#held -= 1;
    if (keep && session.reusable) this.#idle.push(session);
    else await session.stop();
    for (const wake of this.#waiters.splice(0)) wake();
  }

  /** Stops every idle process (at the end of a run). */
  async stopAll(): Promise<void> {
    await Promise.all(this.#idle.splice(0).map((session) => session.stop()));
  }
}
