/**
 * Fan-out: one query to every plugin that serves a requested kind, each bounded by
 * its timeout and isolated from the others — a plugin that throws, hangs or returns
 * junk loses only its own candidates, and says so on stderr under its name.
 *
 * This runs on every query, so it allocates little: a call's AbortSignal is made only
 * if the plugin reads `ctx.signal`, timeouts share one timer (see {@link InFlight}),
 * and the outer signals (host gone, provider closing) get one listener each for
 * their whole life rather than one per query. That bookkeeping lives in a
 * {@link FanOutState}, one per provider.
 */
import type { ContextQuery } from "../wire/schemas.js";
import { describeError, ERROR_CODES, InvalidQueryError, UserError } from "./errors.js";
import { type FrameContext, type PreparedCandidate, prepareCandidate } from "./frames.js";
import type { Logger } from "./logger.js";
import type { Plugin, SearchContext, SearchOutput } from "./plugin.js";

/** What one plugin contributed to a query. */
export interface PluginOutcome {
  readonly plugin: string;
  readonly status: "ok" | "failed" | "timeout";
  /** Candidates that passed the checks. */
  readonly candidates: PreparedCandidate[];
  /** Matches the plugin reported leaving out (candidates rejected as invalid are not counted). */
  readonly omitted: number;
  /** For `failed`: a message meant for the host when the plugin threw a UserError. */
  readonly userMessage?: string;
  /** For `failed`: the plugin threw an `InvalidQueryError` — the query, not the plugin, is at fault. */
  readonly invalidQuery?: boolean;
  /** Why the plugin could not search all it serves (its index still being built): its answer is partial. */
  readonly incomplete?: string;
}

/** The longest `incomplete` sentence passed on: it is a note, not a channel for content. */
const MAX_INCOMPLETE_CHARS = 300;

/** Options of {@link fanOut}. */
export interface FanOutOptions {
  plugins: readonly Plugin[];
  timeoutMs: number;
  /** Signals that stop every plugin (the host went away, the provider is closing). */
  signals?: readonly (AbortSignal | undefined)[];
  log: (plugin: Plugin) => Logger;
  /** The provider's calls in flight and the signals it listens to. */
  state: FanOutState;
  /** The provider's frame ids and digests, which candidates are prepared with. */
  frames: FrameContext;
}

/**
 * Runs the query against every plugin at once and collects their outcomes, in plugin
 * order. When every plugin answered synchronously the outcomes come back as they are,
 * without a promise: a query then costs no microtask hops for its fan-out.
 */
export function fanOut(query: ContextQuery, options: FanOutOptions): PluginOutcome[] | Promise<PluginOutcome[]> {
  const { plugins } = options;
  const outcomes: (PluginOutcome | Promise<PluginOutcome>)[] = [];
  let pending = false;
  for (const plugin of plugins) {
    const outcome = runPlugin(plugin, query, options);
    if (outcome instanceof Promise) pending = true;
    outcomes.push(outcome);
  }
  return pending ? Promise.all(outcomes) : (outcomes as PluginOutcome[]);
}

class PluginTimeout extends Error {}

/**
 * How long a search may hold the thread between two of its checkpoints before one lets
 * other work run ({@link SearchContext.checkpoint}): other queries, `/healthz`, timers —
 * the wait a slice adds to them. Short enough that a busy search delays nobody for long,
 * long enough that the yields cost little of its own time.
 */
const CHECKPOINT_SLICE_MS = 10;

const settled: Promise<void> = Promise.resolve();

/**
 * `promise`, marked as handled: a plugin that calls `ctx.checkpoint()` without awaiting it
 * must not take the process down with an unhandled rejection once its search is stopped.
 * Whoever awaits it still gets the rejection.
 */
function observed(promise: Promise<void>): Promise<void> {
  promise.catch(() => {});
  return promise;
}

/** One plugin's search in flight: what a timeout or an outer abort settles early. */
class Call {
  /** When the search started and must end by, on the monotonic clock (`performance.now()`): a wall-clock jump never stretches or cuts a timeout. */
  readonly started: number;
  readonly deadline: number;
  /** The signals that stop it besides its timeout (the host went away, the provider is closing). */
  readonly outer: readonly (AbortSignal | undefined)[];
  /** Set once the call ended one way or another; later aborts are ignored. */
  done = false;
  /** Links in the list of calls in flight (see {@link InFlight}). */
  prev: Call | undefined;
  next: Call | undefined;
  #reason: unknown;
  #aborted = false;
  #controller: AbortController | undefined;
  #reject: (reason: unknown) => void = () => {};
  /** When the search last let other work run, on the monotonic clock. */
  #resumed: number;

  constructor(started: number, deadline: number, outer: readonly (AbortSignal | undefined)[]) {
    this.started = started;
    this.deadline = deadline;
    this.outer = outer;
    this.#resumed = started;
  }

  /**
   * The search's checkpoint ({@link SearchContext.checkpoint}). Settles at once while the
   * search has held the thread less than a slice; past it, lets the event loop run first.
   * Rejects with the reason once the search is stopped, and stops it itself at its
   * deadline: the timer that would cannot fire before the loop has come round, and the
   * loop comes round to this very callback first.
   */
  checkpoint(): Promise<void> {
    if (this.#aborted) return observed(Promise.reject(this.#reason));
    if (this.done) return settled;
    const now = performance.now();
    if (now >= this.deadline) return observed(this.#timeOut());
    if (now - this.#resumed < CHECKPOINT_SLICE_MS) return settled;
    return observed(
      new Promise((resolve, reject) => {
        setImmediate(() => {
          this.#resumed = performance.now();
          if (this.#aborted) reject(this.#reason);
          else if (!this.done && this.#resumed >= this.deadline) this.#timeOut().catch(reject);
          else resolve();
        });
      }),
    );
  }

  #timeOut(): Promise<void> {
    this.abort(new PluginTimeout(`timed out after ${Math.round(this.deadline - this.started)} ms`));
    return Promise.reject(this.#reason);
  }

  /** Settles with the plugin's pending output, or rejects on an abort, whatever the plugin does. */
  race(output: PromiseLike<SearchOutput>): Promise<SearchOutput> {
    return new Promise<SearchOutput>((resolve, reject) => {
      this.#reject = reject;
      // A plugin that ignores its signal keeps running in the background; its late
      // answer is discarded because the promise has already settled on the abort.
      output.then(resolve, reject);
    });
  }

  /** The call's signal, created on first use: most plugins never look at it. */
  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  abort(reason: unknown): void {
    if (this.done || this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    this.#controller?.abort(reason);
    this.#reject(reason);
  }
}

function isThenable(value: unknown): value is PromiseLike<SearchOutput> {
  return typeof (value as { then?: unknown } | null)?.then === "function";
}

/**
 * The calls in flight, in a linked list threaded through the calls themselves, so a
 * query allocates nothing to be tracked. Their timeouts share one timer, armed for the
 * earliest deadline: under steady load deadlines only move later, so a query costs two
 * link updates instead of a timer. The timer is unref'd whenever nothing is in flight,
 * so it never keeps an idle process alive.
 */
class InFlight {
  #first: Call | undefined;
  #last: Call | undefined;
  #size = 0;
  #timer: NodeJS.Timeout | undefined;
  #armedFor = Number.POSITIVE_INFINITY;

  add(call: Call): void {
    call.prev = this.#last;
    if (this.#last === undefined) this.#first = call;
    else this.#last.next = call;
    this.#last = call;
    this.#size++;
    if (call.deadline < this.#armedFor) this.#arm(call.deadline);
    else if (this.#size === 1) this.#timer?.ref();
  }

  delete(call: Call): void {
    if (call.prev === undefined) this.#first = call.next;
    else call.prev.next = call.next;
    if (call.next === undefined) this.#last = call.prev;
    else call.next.prev = call.prev;
    call.prev = undefined;
    call.next = undefined;
    if (--this.#size === 0) this.#timer?.unref();
  }

  /** Aborts every call in flight that `signal` stops. */
  abortFollowers(signal: AbortSignal): void {
    // Aborting settles a call's promise; it leaves the list later, in its own finally.
    for (let call = this.#first; call !== undefined; call = call.next) {
      if (call.outer.includes(signal)) call.abort(signal.reason);
    }
  }

  #arm(deadline: number): void {
    clearTimeout(this.#timer);
    this.#armedFor = deadline;
    this.#timer = setTimeout(() => this.#fire(), Math.max(0, deadline - performance.now()));
  }

  #fire(): void {
    this.#timer = undefined;
    this.#armedFor = Number.POSITIVE_INFINITY;
    const now = performance.now();
    let next = Number.POSITIVE_INFINITY;
    for (let call = this.#first; call !== undefined; call = call.next) {
      if (call.deadline <= now)
        call.abort(new PluginTimeout(`timed out after ${Math.round(call.deadline - call.started)} ms`));
      else next = Math.min(next, call.deadline);
    }
    if (next !== Number.POSITIVE_INFINITY) this.#arm(next);
  }
}

/**
 * What search() gets. `signal` is an own, enumerable property (spreading the context
 * keeps it) whose getter makes the call's signal on first read. The getter is one
 * function shared by every context: an object literal with a getter would make a fresh
 * closure, and so a fresh hidden class in old space, per query — which kept every
 * query's objects alive through young-generation collections (a fifth of a query's time).
 */
class PluginContext implements SearchContext {
  static readonly #signal: PropertyDescriptor = {
    get(this: PluginContext) {
      return this.#call.signal;
    },
    enumerable: true,
  };
  // Declared, not initialised as fields: the keys then come in the order the constructor adds them.
  declare readonly signal: AbortSignal;
  declare readonly deadline: number;
  declare readonly log: Logger;
  declare readonly checkpoint: () => Promise<void>;
  readonly #call: Call;

  constructor(call: Call, deadline: number, log: Logger) {
    this.#call = call;
    Object.defineProperty(this, "signal", PluginContext.#signal);
    this.deadline = deadline;
    this.log = log;
    // A closure, not a getter like signal's: a data property costs a query nothing measurable
    // (a second defineProperty cost about as much as the first), and destructuring keeps it.
    this.checkpoint = () => call.checkpoint();
  }
}

/** One provider's fan-out bookkeeping: its calls in flight and the outer signals it listens to. */
export class FanOutState {
  /** The provider's calls in flight, with their shared timeout timer. */
  readonly inFlight = new InFlight();
  /** Outer signals already listened to: one listener each for its whole life, not one per query. */
  readonly #listened = new WeakSet<AbortSignal>();

  /** Aborts this provider's calls that `signal` stops, once it aborts. */
  listen(signal: AbortSignal): void {
    if (this.#listened.has(signal)) return;
    this.#listened.add(signal);
    signal.addEventListener("abort", () => this.inFlight.abortFollowers(signal), { once: true });
  }
}

/**
 * One plugin's outcome: at once when its search() answers synchronously, else a
 * promise bounded by the timeout and the outer signals.
 */
function runPlugin(
  plugin: Plugin,
  query: ContextQuery,
  options: FanOutOptions,
): PluginOutcome | Promise<PluginOutcome> {
  const log = options.log(plugin);
  const timeoutMs = plugin.timeoutMs ?? options.timeoutMs;
  const started = performance.now();
  const outer = options.signals ?? [];
  for (const signal of outer) {
    // A query already aborted (host gone, provider closing) does not reach the plugin.
    if (signal?.aborted) return failure(plugin, signal.reason, log);
  }
  const { state } = options;
  const call = new Call(started, started + timeoutMs, outer);
  for (const signal of outer) if (signal !== undefined) state.listen(signal);
  state.inFlight.add(call);
  let output: SearchOutput | PromiseLike<SearchOutput>;
  try {
    output = plugin.search(query, new PluginContext(call, Date.now() + timeoutMs, log));
  } catch (error) {
    finish(state, call);
    return failure(plugin, error, log);
  }
  if (!isThenable(output)) {
    finish(state, call);
    // No timer fires while a synchronous search runs: its time limit is only seen now.
    const held = performance.now() - started;
    if (held > timeoutMs) return heldTooLong(plugin, held, timeoutMs, log);
    return collectSafely(plugin, output, log, options.frames);
  }
  return call.race(output).then(
    (settled) => {
      finish(state, call);
      return collectSafely(plugin, settled, log, options.frames);
    },
    (error: unknown) => {
      finish(state, call);
      return failure(plugin, error, log);
    },
  );
}

/** {@link collect}, with a candidate that throws on being read failing its plugin like a throwing search. */
function collectSafely(plugin: Plugin, output: SearchOutput, log: Logger, frames: FrameContext): PluginOutcome {
  try {
    return collect(plugin, output, log, frames);
  } catch (error) {
    return failure(plugin, error, log);
  }
}

function finish(state: FanOutState, call: Call): void {
  call.done = true;
  state.inFlight.delete(call);
}

/**
 * The outcome of a synchronous search that returned past its time limit: timed out like
 * any other, and said on stderr with what it cost everyone else, since nothing could stop it.
 */
function heldTooLong(plugin: Plugin, held: number, timeoutMs: number, log: Logger): PluginOutcome {
  log.error(
    `${ERROR_CODES.PLUGIN_TIMEOUT}: search ran ${Math.round(held)} ms without letting the event loop run, past its ` +
      `time limit of ${timeoutMs} ms, and every other request waited; its candidates are dropped ` +
      "(bound the work of one query, or make search async and await ctx.checkpoint() in its loops)",
  );
  return { plugin: plugin.name, status: "timeout", candidates: [], omitted: 0 };
}

/** The outcome of a search that threw, rejected, timed out or was aborted; said on stderr. */
function failure(plugin: Plugin, error: unknown, log: Logger): PluginOutcome {
  if (error instanceof PluginTimeout) {
    log.error(`${ERROR_CODES.PLUGIN_TIMEOUT}: search ${error.message}; its candidates are dropped`);
    return { plugin: plugin.name, status: "timeout", candidates: [], omitted: 0 };
  }
  // A UserError's message is for whoever asked; the provider says it once, where it knows
  // who that is (see the provider's result), rather than here and again by the caller.
  if (!(error instanceof UserError)) log.error(`${ERROR_CODES.PLUGIN_FAILED}: search failed: ${describeError(error)}`);
  if (error instanceof Error && error.stack !== undefined) log.debug(error.stack);
  return {
    plugin: plugin.name,
    status: "failed",
    candidates: [],
    omitted: 0,
    userMessage: error instanceof UserError ? error.message : undefined,
    ...(error instanceof InvalidQueryError ? { invalidQuery: true } : {}),
  };
}

function collect(plugin: Plugin, output: SearchOutput, log: Logger, frames: FrameContext): PluginOutcome {
  const list: unknown = Array.isArray(output) ? output : (output as { candidates?: unknown })?.candidates;
  if (!Array.isArray(list)) {
    log.error(`${ERROR_CODES.PLUGIN_FAILED}: search must return an array of candidates or { candidates }`);
    return { plugin: plugin.name, status: "failed", candidates: [], omitted: 0 };
  }
  const reported = Array.isArray(output) ? 0 : Number(output.omitted ?? 0);
  const candidates: PreparedCandidate[] = [];
  let rejected = 0;
  let clamped = 0;
  for (let index = 0; index < list.length; index++) {
    const prepared = prepareCandidate(list[index], plugin, frames);
    if (typeof prepared !== "string") {
      candidates.push(prepared);
      if (prepared.clamped) clamped++;
    } else {
      rejected++;
      if (rejected <= 3) log.warn(`candidate #${index} rejected: ${prepared}`);
    }
  }
  if (rejected > 3) log.warn(`${rejected - 3} more candidates rejected`);
  if (clamped > 0)
    log.warn(`${clamped} candidate(s) had relevance above 1 and were clamped to 1 (declare scores: "unbounded"?)`);
  const omitted = Number.isInteger(reported) && reported > 0 ? reported : 0;
  const incomplete = Array.isArray(output) ? undefined : incompleteOf(output.incomplete, log);
  return incomplete === undefined
    ? { plugin: plugin.name, status: "ok", candidates, omitted }
    : { plugin: plugin.name, status: "ok", candidates, omitted, incomplete };
}

/** A plugin's `incomplete` sentence on one line and bounded; anything but a non-empty string is none. */
function incompleteOf(value: unknown, log: Logger): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string") {
    log.warn("search returned an `incomplete` that is not a string: ignored");
    return undefined;
  }
  const line = value.replace(/\s+/g, " ").trim();
  if (line === "") return undefined;
  return line.length <= MAX_INCOMPLETE_CHARS ? line : `${line.slice(0, MAX_INCOMPLETE_CHARS - 1)}…`;
}
