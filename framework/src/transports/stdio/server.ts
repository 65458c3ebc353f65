/**
 * `ocp-provider/stdio`: a provider over NDJSON on a pair of streams.
 *
 * {@link serveStdio} takes injected streams, so tests need no child process;
 * {@link runStdio} binds it to the process: stdout carries envelopes only,
 * SIGTERM/SIGINT/EOF/`shutdown` write every reply owed and exit 0.
 *
 * EOF is not a request to stop: a host that writes a batch and closes its end (a shell
 * pipe) still wants every answer, so after EOF each query runs to its own deadline. A
 * `shutdown` or a signal, also one after EOF, gives the queries in flight `drainMs`.
 *
 * Backpressure: no further request is taken on while the output refuses more (a `write`
 * returned false and no `drain` came yet), nor while `maxPending` requests are taken on
 * and their replies not yet written (the head one still being searched, say): the lines
 * already read wait and the input is paused. So neither a host that stops reading nor
 * one that writes faster than the provider answers can make it pile up work or replies.
 */
import { format } from "node:util";
import { describeError } from "../../provider/errors.js";
import type { Provider } from "../../provider/provider.js";
import { openResponder, type SessionReply } from "../../provider/session.js";
import { errorEnvelope, writeEnvelope } from "../../wire/codec.js";
import type { Envelope } from "../../wire/schemas.js";
import { type FrameEvent, LineSplitter } from "./ndjson.js";

/** The readable side: any Node readable stream of bytes. */
export interface ByteSource {
  on(event: "data", listener: (chunk: Buffer | string) => void): unknown;
  on(event: "end" | "close", listener: () => void): unknown;
  on(event: "error", listener: (error: Error) => void): unknown;
  removeAllListeners?(event?: string): unknown;
  /** Stops the flow of `data` (backpressure, the end of the session); without it, reading never stops. */
  pause?(): unknown;
  /** Starts the flow again after a `pause` for backpressure. */
  resume?(): unknown;
}

/** The writable side: what we need of a Node writable stream. */
export interface ByteSink {
  /** Takes one NDJSON line: a string, or its UTF-8 bytes. */
  write(chunk: string | Uint8Array): boolean;
  once(event: "drain", listener: () => void): unknown;
  on?(event: "error", listener: (error: Error) => void): unknown;
}

/** Why a stdio session ended. */
export type CloseReason = "shutdown" | "eof" | "signal" | "output-error";

/** Options of {@link serveStdio}. */
export interface StdioOptions {
  /** Where envelopes arrive. */
  input: ByteSource;
  /** Where replies go: envelopes and nothing else. */
  output: ByteSink;
  /** Longest accepted line in bytes; longer ones get an `error` and are skipped. Default 1 MiB. */
  maxLineBytes?: number;
  /**
   * Most requests taken on at once: those whose replies are not yet written, running or
   * done and waiting for their turn. Past it, reading pauses until the reply at the head of
   * the queue is written. Default {@link DEFAULT_MAX_PENDING}.
   */
  maxPending?: number;
  /**
   * How long in-flight queries may run after `shutdown` or a signal before they are
   * aborted (after EOF alone, each runs to its own deadline). Default 700 ms.
   */
  drainMs?: number;
  /**
   * Once the session is ending, how long a reply may wait for the host to read (the output
   * full, nothing written or read) before the replies still owed are dropped: a host that
   * stopped reading must not keep the provider alive. Default 1000 ms.
   */
  stallMs?: number;
  /** Called once, synchronously, when the session starts ending (before draining). */
  onEnd?: (reason: CloseReason) => void;
}

/** A running stdio session. */
export interface StdioServer {
  /** Resolves once the session has ended and every reply owed has been written. */
  readonly closed: Promise<CloseReason>;
  /** Ends the session as a signal would: stop reading, drain, resolve `closed`. */
  close(reason?: CloseReason): Promise<CloseReason>;
}

/**
 * How many requests a stdio session takes on at once by default: deep enough that a host
 * pipelining queries keeps every plugin busy, shallow enough that what waits (the requests,
 * their replies) stays a few MB whatever the host sends.
 */
export const DEFAULT_MAX_PENDING = 64;

/** A reply's place in the output order. */
interface Slot {
  settled: boolean;
  envelope: Envelope | undefined;
}

/** Serves one host session over NDJSON on `input`/`output`. */
export function serveStdio(provider: Provider, options: StdioOptions): StdioServer {
  const { input, output } = options;
  const drainMs = options.drainMs ?? 700;
  const stallMs = options.stallMs ?? 1000;
  const maxPending = Math.max(1, options.maxPending ?? DEFAULT_MAX_PENDING);
  const splitter = new LineSplitter(options.maxLineBytes ?? 1024 * 1024);
  const { session, respond, writer } = openResponder(provider);
  // Every query shares one abort signal; its drain window opens at `shutdown` or a signal.
  const inflight = new AbortController();
  const queryOptions = { signal: inflight.signal };
  let drainWindow: NodeJS.Timeout | undefined;
  let ending: Promise<CloseReason> | undefined;
  let outputBroken = false;
  let resolveClosed: (reason: CloseReason) => void = () => {};
  const closed = new Promise<CloseReason>((resolve) => {
    resolveClosed = resolve;
  });

  // Replies leave in request order while their work runs concurrently: each request
  // takes a slot, and settled slots are written from the head of the queue.
  const queue: Slot[] = [];
  let waitingForDrain = false;
  let idle: (() => void) | undefined;
  /** While the session ends: when a reply was last written or read by the host (`performance.now()`). */
  let lastProgress = 0;

  // Lines read but not yet taken on, because the output was saturated or `maxPending`
  // requests were waiting when their turn came (at most what one read brought, plus
  // anything a source without pause() sends).
  let held: FrameEvent[] | undefined;
  let heldFrom = 0;
  /**
   * Held lines are being taken on: the replies of the first ones can all be written before
   * the rest are (the output took them), and that is not the end of what is owed.
   */
  let releasing = false;
  let paused = false;
  let inputEnded = false;
  /** No more lines are taken on: after `shutdown`, a signal, or a broken output (EOF still answers what it read). */
  let stopped = false;

  function serialise(envelope: Envelope): string | Buffer {
    try {
      // Frames come only from our own session, built by the framework: valid by construction.
      return envelope.type === "frames" ? writer.line(envelope.result) : `${writeEnvelope(envelope)}\n`;
    } catch (error) {
      // Our bug, not the host's: still answer, so the host never waits for nothing.
      provider.log.error(describeError(error));
      return `${writeEnvelope(errorEnvelope("internal error: the provider produced an invalid reply"))}\n`;
    }
  }

  function onDrain(): void {
    waitingForDrain = false;
    if (ending !== undefined) lastProgress = performance.now();
    flush();
    if (!waitingForDrain) release();
  }

  function flush(): void {
    while (!waitingForDrain && queue.length > 0 && (queue[0] as Slot).settled) {
      const { envelope } = queue.shift() as Slot;
      if (envelope === undefined || outputBroken) continue;
      if (ending !== undefined) lastProgress = performance.now();
      if (!output.write(serialise(envelope))) {
        waitingForDrain = true;
        // Saturated: take no more requests until the host has read what it was sent.
        pauseInput();
        output.once("drain", onDrain);
      }
    }
    // A reply written frees a place: the lines held for one are taken on (not from inside
    // a release, which goes on by itself).
    if (held !== undefined && !releasing && !full()) release();
    settledAll();
  }

  /** No further request may be taken on now: the output is saturated, or `maxPending` are. */
  function full(): boolean {
    return waitingForDrain || queue.length >= maxPending;
  }

  /** Stops reading until the held lines are taken on (not once the session ends: it stops reading for good). */
  function pauseInput(): void {
    if (!paused && ending === undefined && input.pause !== undefined) {
      paused = true;
      input.pause();
    }
  }

  /** Whether a reply is still owed: a slot unwritten, a write not yet drained, a line held or being released. */
  function owing(): boolean {
    return queue.length > 0 || waitingForDrain || held !== undefined || releasing;
  }

  /** Tells a waiting end that every reply owed has been written. */
  function settledAll(): void {
    if (!owing()) idle?.();
  }

  /** Takes the next reply slot; `reply` fills it (a reply already known fills it at once). */
  function enqueue(reply: Promise<SessionReply> | SessionReply): void {
    const slot: Slot = { settled: false, envelope: undefined };
    queue.push(slot);
    if (!(reply instanceof Promise)) {
      slot.settled = true;
      slot.envelope = reply.envelope;
      flush();
      return;
    }
    // Session replies never reject: every problem is already an `error` envelope.
    reply.then((settled) => {
      slot.settled = true;
      slot.envelope = settled.envelope;
      flush();
    });
  }

  /** Answers a line that never reached the session (bad framing or JSON) with an `error`. */
  function refuse(message: string): void {
    enqueue({ envelope: errorEnvelope(message), outcome: "rejected" });
  }

  /** Resolves once every line read has been answered and every reply written (or the output broke). */
  function written(): Promise<void> {
    if (!owing()) return Promise.resolve();
    return new Promise<void>((resolve) => {
      idle = resolve;
    });
  }

  function onLine(text: string): void {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      refuse(`malformed JSON: ${describeError(error).replace(/^SyntaxError: /, "")}`);
      return;
    }
    // Lines are taken on after EOF too (those held behind a full output): like any other,
    // each query runs to its own deadline unless a `shutdown` or signal opens the drain window.
    enqueue(respond(value, queryOptions));
    if (session.state === "closed") void end("shutdown");
  }

  /** Takes on `events` from `from` on, until the output saturates; the rest is held. */
  function dispatch(events: FrameEvent[], from: number): void {
    for (let i = from; i < events.length; i++) {
      if (stopped) return; // nothing after `shutdown` is read
      if (full()) {
        held = events;
        heldFrom = i;
        pauseInput();
        return;
      }
      const event = events[i] as FrameEvent;
      if (event.type === "line") onLine(event.text);
      else refuse(`line too long: over ${event.limit} bytes; skipped to the next newline`);
    }
  }

  /** After a drain or a reply written: takes on the held lines, then reads on. */
  function release(): void {
    if (held !== undefined) {
      const events = held;
      held = undefined;
      releasing = true;
      dispatch(events, heldFrom);
      releasing = false;
      if (held !== undefined) return; // saturated again
      settledAll();
    }
    if (ending === undefined && paused) {
      paused = false;
      input.resume?.();
    }
  }

  function onChunk(chunk: Buffer | string): void {
    if (ending !== undefined || inputEnded) return;
    const bytes = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk;
    const events = splitter.push(bytes);
    // Behind lines already held (a source that cannot pause keeps sending): order is kept.
    if (held !== undefined) for (const event of events) held.push(event);
    else dispatch(events, 0);
  }

  function onInputEnd(): void {
    if (ending !== undefined || inputEnded) return;
    inputEnded = true;
    const events = splitter.end();
    if (held !== undefined) for (const event of events) held.push(event);
    else dispatch(events, 0);
    // Lines still held are answered while the session ends, as long as the host reads.
    void end("eof");
  }

  /** Drops what is still owed: the output is gone, or the host stopped reading while the session ends. */
  function abandonOutput(): void {
    stopped = true;
    held = undefined;
    outputBroken = true;
    // Nothing more can be written: what is owed is dropped, and waiting for a drain would never end.
    waitingForDrain = false;
    flush();
  }

  /**
   * `shutdown` or a signal: no further line is taken on, and the queries in flight get
   * `drainMs` to finish; then they are aborted, which makes them answer at once with an
   * error rather than leave the host waiting. Also when it comes after EOF.
   */
  function stop(): void {
    stopped = true;
    held = undefined;
    drainWindow ??= setTimeout(() => inflight.abort(new Error("provider shutting down")), drainMs);
    // Lines held after EOF are dropped now: an end already waiting may have nothing left to wait for.
    settledAll();
  }

  function end(reason: CloseReason): Promise<CloseReason> {
    // After EOF alone every query runs to its own deadline (see the module comment); a
    // `shutdown` or signal stops the session, also one that EOF already began to end.
    if (reason !== "eof") stop();
    ending ??= (async () => {
      options.onEnd?.(reason);
      input.removeAllListeners?.("data");
      input.pause?.();
      // Every reply owed is written as long as the host reads them; when one has waited
      // `stallMs` for a full output (the host stopped reading), the rest is dropped. These
      // timers are what keeps the process alive meanwhile: never unref them.
      lastProgress = performance.now();
      let stall: NodeJS.Timeout | undefined;
      const watch = (): void => {
        // Only a reply the output refuses counts: a query still searching is not the host's doing.
        if (!waitingForDrain) lastProgress = performance.now();
        // Measured on the clock, not by the timer: a timer set after a long synchronous
        // stretch fires early, as Node's loop time was not updated during it.
        const quiet = performance.now() - lastProgress;
        if (quiet < stallMs) {
          stall = setTimeout(watch, stallMs - quiet);
          return;
        }
        const dropped = queue.length + (held === undefined ? 0 : held.length - heldFrom);
        provider.log.warn(`nothing could be written for ${stallMs} ms: ${dropped} replies owed are dropped`);
        abandonOutput();
      };
      stall = setTimeout(watch, stallMs);
      await written();
      clearTimeout(drainWindow);
      clearTimeout(stall);
      resolveClosed(reason);
      return reason;
    })();
    return ending;
  }

  input.on("data", onChunk);
  input.on("end", onInputEnd);
  input.on("close", onInputEnd);
  input.on("error", (error) => {
    provider.log.error(`stdin error: ${describeError(error)}`);
    void end("eof");
  });
  output.on?.("error", (error) => {
    abandonOutput();
    provider.log.error(`stdout error: ${describeError(error)}`);
    void end("output-error");
  });

  return { closed, close: (reason = "signal") => end(reason) };
}

/** Options of {@link runStdio}. */
export interface RunStdioOptions {
  /** Longest accepted line in bytes. Default 1 MiB. */
  maxLineBytes?: number;
  /** Most requests taken on at once (see {@link StdioOptions.maxPending}). Default {@link DEFAULT_MAX_PENDING}. */
  maxPending?: number;
}

/**
 * Serves `provider` on this process's stdin/stdout until shutdown, EOF or a signal,
 * then writes every reply owed, closes the plugins and exits 0. While it runs, console
 * output and any stray `process.stdout.write` go to stderr, so stdout carries envelopes only.
 */
export async function runStdio(provider: Provider, options: RunStdioOptions = {}): Promise<never> {
  const stdout = process.stdout;
  const writeStdout = guardStdout();
  const server = serveStdio(provider, {
    input: process.stdin,
    output: {
      write: writeStdout,
      once: (event, listener) => stdout.once(event, listener),
      on: (e, l) => stdout.on(e, l),
    },
    maxLineBytes: options.maxLineBytes,
    maxPending: options.maxPending,
  });
  const onSignal = () => void server.close("signal");
  process.once("SIGTERM", onSignal);
  process.once("SIGINT", onSignal);
  const reason = await server.closed;
  provider.log.debug(`session ended (${reason})`);
  // Each wait from here on is bounded by a timer that holds the process open: were the
  // event loop to run dry while a bin's top-level await is pending, Node would end the
  // process with exit code 13 instead of our 0.
  // Plugins get a short, bounded chance to close; the exit must not wait on them.
  await within(provider.close(), 200);
  // The last replies may still sit in the stream's buffer: hand them to the OS before exiting.
  await within(stdoutFlushed(), 300);
  process.exit(0);
}

/** Resolves when `work` settles or after `ms`, whichever is first. */
async function within(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  try {
    await Promise.race([work.then(noop, noop), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

const noop = () => {};

/**
 * Resolves once everything written to stdout so far has been handed to the OS. An
 * empty write's callback runs after the writes before it; `drain` would not do, as it
 * comes only after a write that returned false.
 */
function stdoutFlushed(): Promise<void> {
  if (process.stdout.writableLength === 0) return Promise.resolve();
  return new Promise((resolve) => {
    // stdout's own write: `process.stdout.write` itself now goes to stderr.
    (guardStdout() as (chunk: string, callback: () => void) => boolean)("", () => resolve());
  });
}

let realStdoutWrite: ((chunk: string | Uint8Array) => boolean) | undefined;

/**
 * Sends console output and direct `process.stdout.write` calls to stderr for the rest
 * of the process, and returns the real stdout writer (idempotent: call it before
 * loading code that might print, and again to get the writer).
 */
export function guardStdout(): (chunk: string | Uint8Array) => boolean {
  if (realStdoutWrite !== undefined) return realStdoutWrite;
  const stdout = process.stdout;
  const original = stdout.write.bind(stdout) as (chunk: string | Uint8Array) => boolean;
  realStdoutWrite = original;
  const toStderr = (...args: unknown[]) => {
    process.stderr.write(`${format(...args)}\n`);
  };
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
  console.warn = toStderr;
  console.trace = toStderr;
  console.dir = toStderr;
  stdout.write = ((chunk: unknown, ...rest: unknown[]) =>
    (process.stderr.write as (...args: unknown[]) => boolean)(chunk, ...rest)) as typeof stdout.write;
  return original;
}
