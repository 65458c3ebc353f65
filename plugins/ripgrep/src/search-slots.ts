/**
 * The bound on concurrent searches: at most `concurrency` rg processes run at once;
 * later queries wait for a slot in arrival order, in a queue of at most `maxQueued`.
 * A query that finds the queue full, or that waits `maxWaitMs` without getting a
 * slot, is refused at once with an `OCP_ERR_BUSY` error: it never spawns rg, and it
 * never waits silently into the framework's timeout.
 *
 * Without it, 1000 pipelined queries started 1000 rg processes at once; they shared
 * the CPUs so thinly that nearly all of them hit their timeout.
 */
import { ERROR_CODES, UserError } from "ocp-provider";

/** Options of {@link SearchSlots}. */
export interface SearchSlotsOptions {
  /** The most searches running at once (≥ 1). */
  readonly concurrency: number;
  /** The most searches waiting for a slot (≥ 0); past it, a search is refused at once. */
  readonly maxQueued: number;
  /** The longest a search waits for a slot, in ms; then it is refused. */
  readonly maxWaitMs: number;
  /** Who is busy, for the refusal's message (`plugin 'ripgrep'`). */
  readonly label: string;
}

/** Gives a slot back; calling it again does nothing. */
export type ReleaseSlot = () => void;

/** A refusal for lack of capacity: its message, meant for the host, starts with `OCP_ERR_BUSY`. */
export class BusyError extends UserError {
  /** Always `OCP_ERR_BUSY`. */
  override readonly code = ERROR_CODES.BUSY;
  constructor(message: string) {
    super(`${ERROR_CODES.BUSY}: ${message}`);
    this.name = "BusyError";
  }
}

/**
 * A {@link BusyError} without a stack trace. A refusal is not a bug, so its stack says
 * nothing; capturing one (and formatting it, when the framework logs the error) was
 * most of the cost of refusing a query, and a host that pipelines 10,000 queries makes
 * the provider refuse thousands at once, on the event loop its running searches need.
 */
function busy(message: string): BusyError {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return new BusyError(message);
  } finally {
    Error.stackTraceLimit = limit;
  }
}

interface Waiter {
  /** When it started waiting, on the monotonic clock. */
  readonly since: number;
  readonly resolve: (release: ReleaseSlot) => void;
  readonly reject: (reason: unknown) => void;
  readonly signal: AbortSignal | undefined;
  readonly onAbort: () => void;
  /** Granted, refused or aborted: no longer waiting (it may still sit in the array). */
  done: boolean;
}

/** A counting semaphore with a bounded FIFO queue and a bounded wait (see the module comment). */
export class SearchSlots {
  readonly #options: SearchSlotsOptions;
  #running = 0;
  /** Waiters in arrival order from {@link #head}; aborted ones are left in place, marked done. */
  #queue: Waiter[] = [];
  #head = 0;
  #waiting = 0;
  /** Armed while anyone waits, for the first waiter's wait bound. */
  #timer: NodeJS.Timeout | undefined;

  constructor(options: SearchSlotsOptions) {
    this.#options = options;
  }

  /** Searches holding a slot now. */
  get running(): number {
    return this.#running;
  }

  /** Searches waiting for a slot now. */
  get waiting(): number {
    return this.#waiting;
  }

  /**
   * Takes a slot: at once when one is free and nobody waits, else after every earlier
   * caller. Rejects with a {@link BusyError} when the queue is full or the wait bound
   * passes, and with the signal's reason when `signal` aborts while waiting. `signal`
   * may be a getter, read only if the caller has to wait.
   */
  acquire(signal?: AbortSignal | (() => AbortSignal)): Promise<ReleaseSlot> {
    const { concurrency, maxQueued } = this.#options;
    if (this.#running < concurrency && this.#waiting === 0) {
      this.#running++;
      return Promise.resolve(this.#releaser());
    }
    if (this.#waiting >= maxQueued) {
      return Promise.reject(
        busy(
          `${this.#options.label} is busy: ${this.#running} searches running and ${this.#waiting} waiting, ` +
            "the most it queues; nothing was searched, retry later",
        ),
      );
    }
    // Only a query that waits needs its signal: a getter lets the caller make it only then.
    const waitSignal = typeof signal === "function" ? signal() : signal;
    if (waitSignal?.aborted) return Promise.reject(waitSignal.reason);
    return new Promise<ReleaseSlot>((resolve, reject) => {
      const waiter: Waiter = {
        since: performance.now(),
        resolve,
        reject,
        signal: waitSignal,
        onAbort: () => {
          if (waiter.done) return;
          this.#leave(waiter);
          reject(waitSignal?.reason);
        },
        done: false,
      };
      waitSignal?.addEventListener("abort", waiter.onAbort, { once: true });
      this.#queue.push(waiter);
      this.#waiting++;
      if (this.#timer === undefined) this.#arm();
    });
  }

  /** A release for a slot just taken: gives it to the next waiter still within its bound. */
  #releaser(): ReleaseSlot {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#running--;
      this.#grant();
    };
  }

  #grant(): void {
    const now = performance.now();
    while (this.#running < this.#options.concurrency) {
      const waiter = this.#first();
      if (waiter === undefined) break;
      // The timer may run late on a busy event loop: a wait past its bound is refused here too.
      if (now - waiter.since >= this.#options.maxWaitMs) {
        this.#refuse(waiter, now);
        continue;
      }
      this.#leave(waiter);
      this.#running++;
      waiter.resolve(this.#releaser());
    }
  }

  /** The first waiter still waiting, dropping finished ones from the front. */
  #first(): Waiter | undefined {
    while (this.#head < this.#queue.length) {
      const waiter = this.#queue[this.#head] as Waiter;
      if (!waiter.done) return waiter;
      this.#head++;
    }
    return undefined;
  }

  /** Marks `waiter` as no longer waiting; compacts the array once its front is mostly finished. */
  #leave(waiter: Waiter): void {
    waiter.done = true;
    waiter.signal?.removeEventListener("abort", waiter.onAbort);
    this.#waiting--;
    if (this.#waiting === 0) {
      this.#queue = [];
      this.#head = 0;
      clearTimeout(this.#timer);
      this.#timer = undefined;
    } else if (this.#head > 1024 && this.#head * 2 > this.#queue.length) {
      this.#queue = this.#queue.slice(this.#head);
      this.#head = 0;
    }
  }

  #refuse(waiter: Waiter, now: number): void {
    this.#leave(waiter);
    waiter.reject(
      busy(
        `${this.#options.label} is busy: no search slot came free within ${Math.round(now - waiter.since)} ms ` +
          `(${this.#running} searches running); nothing was searched, retry later`,
      ),
    );
  }

  /** Arms the timer for the first waiter's bound. Every wait has the same bound, so the first expires first. */
  #arm(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const first = this.#first();
    if (first === undefined) return;
    const due = first.since + this.#options.maxWaitMs - performance.now();
    this.#timer = setTimeout(() => this.#expire(), Math.max(0, due));
  }

  /** Refuses every waiter whose bound has passed, then re-arms for the next. */
  #expire(): void {
    this.#timer = undefined;
    const now = performance.now();
    for (let waiter = this.#first(); waiter !== undefined; waiter = this.#first()) {
      if (now - waiter.since < this.#options.maxWaitMs) break;
      this.#refuse(waiter, now);
    }
    if (this.#waiting > 0) this.#arm();
  }
}
