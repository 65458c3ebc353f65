/**
 * The conformance suite's view of a stdio provider: one process, spoken to over
 * its stdin and stdout. A reply is the next stdout line that is a JSON object with a
 * provider envelope type; anything else is noise, logged for schema-validity and
 * never taken for a reply. Once a request times out, the session is unresponsive
 * and later requests fail at once with that reason, so a hanging provider costs
 * one timeout, not one per check.
 */

import type { MessageLog } from "../../conformance/schema.js";
import { asReply, type Reply, type WireSession } from "../../conformance/session.js";
import {
  type ProcessExit,
  type ProviderProcess,
  spawnProviderProcess,
  stderrGist,
  within,
} from "../../host/process.js";
import type { StdioTarget } from "../targets.js";

/** A value as one JSON line; a string or bytes as they are (for malformed input). */
const serialise = (message: unknown): string | Uint8Array =>
  typeof message === "string" || message instanceof Uint8Array ? message : `${JSON.stringify(message)}\n`;

/** One provider process, spoken to over stdio. */
export class StdioSession implements WireSession {
  readonly #child: ProviderProcess;
  readonly #replies: Reply[] = [];
  readonly #waiters: ((reply: Reply | undefined) => void)[] = [];
  #unresponsive: string | undefined;
  #lines = 0;
  #replied = false;
  #acked = false;
  #label: string;

  /** Spawns the target; every stdout line goes to `log` as "`label`, line N". */
  constructor(target: StdioTarget, label: string, log: MessageLog) {
    this.#label = label;
    this.#child = spawnProviderProcess(target.command, target.args ?? [], { cwd: target.cwd, env: target.env });
    this.#child.onOutput((event) => {
      if (event.type === "overflow") {
        log.record(`${this.#label}, line ${++this.#lines}`, `(a line over ${event.limit} bytes)`);
        return;
      }
      log.record(`${this.#label}, line ${++this.#lines}`, event.text);
      const reply = asReply(event.text);
      if (reply === undefined) return;
      this.#replied = true;
      if (reply.ok && reply.type === "handshake_ack") this.#acked = true;
      const waiter = this.#waiters.shift();
      if (waiter !== undefined) waiter(reply);
      else this.#replies.push(reply);
    });
    void this.#child.exited.then(() => {
      for (const waiter of this.#waiters.splice(0)) waiter(undefined);
    });
  }

  /** True once the provider has sent any reply at all. */
  get replied(): boolean {
    return this.#replied;
  }

  /** True once the provider has acked a handshake on this process. */
  get acked(): boolean {
    return this.#acked;
  }

  /**
   * Whether another check may use this process as its own: it is alive, answering, and
   * owes no reply (a late one would be taken for the next check's).
   */
  get reusable(): boolean {
    return this.deadReason === undefined && this.#replies.length === 0 && this.#waiters.length === 0;
  }

  /** True once the provider has left a request unanswered past its timeout (it may still be running). */
  get unanswered(): boolean {
    return this.#unresponsive !== undefined;
  }

  /** Names the process's later stdout lines in the log after the check now using it. */
  relabel(label: string): void {
    this.#label = label;
  }

  /** The exit, once the process has ended. */
  get exit(): ProcessExit | undefined {
    return this.#child.exit;
  }

  /** Why no reply can come any more ("exited (code 1)…"), or undefined while it can. */
  get deadReason(): string | undefined {
    if (this.#child.spawnError) return `could not start the provider: ${this.#child.spawnError.message}`;
    const exit = this.#child.exit;
    if (exit !== undefined)
      return `the provider exited (${describeExit(exit)}); stderr: ${stderrGist(this.#child.stderr())}`;
    return this.#unresponsive;
  }

  /** Writes a message to the provider's stdin: a value as a JSON line, a string or bytes as they are. */
  send(message: unknown): void {
    this.#child.write(serialise(message));
  }

  /**
   * Waits for the next reply; `undefined` after `timeoutMs` or once the process is gone.
   * With `owed` (what the reply answers), a timeout leaves the session unresponsive, as a
   * request's does; without it the provider may rightly stay silent (junk).
   */
  async nextReply(timeoutMs: number, owed?: string): Promise<Reply | undefined> {
    const ready = this.#replies.shift();
    if (ready !== undefined) return ready;
    if (this.#child.exit !== undefined) return undefined;
    let deliver: ((reply: Reply | undefined) => void) | undefined;
    const arrived = new Promise<Reply | undefined>((resolve) => {
      deliver = resolve;
      this.#waiters.push(resolve);
    });
    const reply = await within(arrived, timeoutMs);
    if (reply === undefined) {
      const index = this.#waiters.indexOf(deliver as (reply: Reply | undefined) => void);
      if (index !== -1) this.#waiters.splice(index, 1);
      if (owed !== undefined && this.#child.exit === undefined)
        this.#unresponsive ??= `the provider left the ${owed} unanswered for ${timeoutMs} ms`;
    }
    return reply;
  }

  async request(message: unknown, what: string, timeoutMs: number): Promise<Reply> {
    const [reply] = await this.requestMany([message], what, timeoutMs);
    return reply as Reply;
  }

  async requestMany(messages: readonly unknown[], what: string, timeoutMs: number): Promise<Reply[]> {
    const dead = this.deadReason;
    if (dead !== undefined) return messages.map(() => ({ ok: false, reason: `not sent: ${dead}` }));
    const parts = messages.map(serialise);
    this.#child.write(
      parts.every((part) => typeof part === "string")
        ? parts.join("")
        : Buffer.concat(parts.map((p) => Buffer.from(p))),
    );
    const replies: Reply[] = [];
    const deadline = Date.now() + timeoutMs;
    for (let i = 0; i < messages.length; i++) {
      const reply = await this.nextReply(Math.max(0, deadline - Date.now()));
      if (reply !== undefined) {
        replies.push(reply);
        continue;
      }
      const reason =
        this.deadReason ??
        `no reply to the ${what} within ${timeoutMs} ms${messages.length > 1 ? ` (${i} of ${messages.length} came)` : ""}`;
      if (this.#child.exit === undefined)
        this.#unresponsive = `the provider left the ${what} unanswered for ${timeoutMs} ms`;
      while (replies.length < messages.length) replies.push({ ok: false, reason });
      break;
    }
    return replies;
  }

  /** What the provider wrote to stderr so far (the kept tail). */
  stderr(): string {
    return this.#child.stderr();
  }

  /** Closes stdin (EOF). */
  closeInput(): void {
    this.#child.closeInput();
  }

  /** Waits up to `ms` for the process to exit; undefined if it is still running. */
  waitForExit(ms: number): Promise<ProcessExit | undefined> {
    return within(this.#child.exited, ms);
  }

  /** Kills the process group at once. */
  async stop(): Promise<void> {
    await this.#child.stop(0);
  }
}

/** "code 0", "signal SIGKILL". */
export function describeExit(exit: ProcessExit): string {
  return exit.signal !== null ? `signal ${exit.signal}` : `code ${exit.code}`;
}
