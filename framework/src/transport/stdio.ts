/**
 * `ocp-provider/stdio`: a provider over NDJSON on a pair of streams.
 *
 * {@link serveStdio} takes injected streams, so tests need no child process;
 * {@link runStdio} binds it to the process: stdout carries envelopes only,
 * SIGTERM/SIGINT/EOF/`shutdown` drain in-flight replies and exit 0 within a second.
 */
import { format } from "node:util";
import { describeError } from "../provider/errors.js";
import type { Provider } from "../provider/provider.js";
import { createInternalSession, RESPOND_NOW, type SessionReply } from "../provider/session.js";
import { errorEnvelope, writeEnvelope } from "../wire/codec.js";
import { framesEnvelopeLine } from "../wire/frames-json.js";
import type { Envelope } from "../wire/schemas.js";
import { LineSplitter } from "./ndjson.js";

/** The readable side: any Node readable stream of bytes. */
export interface ByteSource {
  on(event: "data", listener: (chunk: Buffer | string) => void): unknown;
  on(event: "end" | "close", listener: () => void): unknown;
  on(event: "error", listener: (error: Error) => void): unknown;
  removeAllListeners?(event?: string): unknown;
  pause?(): unknown;
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
  /** How long in-flight queries may run after the session ends before they are aborted. Default 700 ms. */
  drainMs?: number;
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

/** A reply's place in the output order. */
interface Slot {
  settled: boolean;
  envelope: Envelope | undefined;
}

/** Serves one host session over NDJSON on `input`/`output`. */
export function serveStdio(provider: Provider, options: StdioOptions): StdioServer {
  const { input, output } = options;
  const drainMs = options.drainMs ?? 700;
  const splitter = new LineSplitter(options.maxLineBytes ?? 1024 * 1024);
  const session = createInternalSession(provider);
  const inflight = new AbortController();
  const queryOptions = { signal: inflight.signal };
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

  function serialise(envelope: Envelope): string | Buffer {
    try {
      // Frames come only from our own session, built by the framework: valid by construction.
      return envelope.type === "frames" ? framesEnvelopeLine(envelope.result) : `${writeEnvelope(envelope)}\n`;
    } catch (error) {
      // Our bug, not the host's: still answer, so the host never waits for nothing.
      provider.log.error(describeError(error));
      return `${writeEnvelope(errorEnvelope("internal error: the provider produced an invalid reply"))}\n`;
    }
  }

  function flush(): void {
    while (!waitingForDrain && queue.length > 0 && (queue[0] as Slot).settled) {
      const { envelope } = queue.shift() as Slot;
      if (envelope === undefined || outputBroken) continue;
      if (!output.write(serialise(envelope))) {
        waitingForDrain = true;
        output.once("drain", () => {
          waitingForDrain = false;
          flush();
        });
      }
    }
    if (queue.length === 0 && !waitingForDrain) idle?.();
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

  /** Resolves once every reply owed has been written (or the output broke). */
  function written(): Promise<void> {
    if (queue.length === 0 && !waitingForDrain) return Promise.resolve();
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
    enqueue(session[RESPOND_NOW](value, queryOptions));
    if (session.state === "closed") void end("shutdown");
  }

  function onChunk(chunk: Buffer | string): void {
    if (ending !== undefined) return;
    const bytes = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk;
    for (const event of splitter.push(bytes)) {
      if (ending !== undefined) return; // nothing after `shutdown` is read
      if (event.type === "line") onLine(event.text);
      else refuse(`line too long: over ${event.limit} bytes; skipped to the next newline`);
    }
  }

  function end(reason: CloseReason): Promise<CloseReason> {
    ending ??= (async () => {
      options.onEnd?.(reason);
      input.removeAllListeners?.("data");
      input.pause?.();
      // Give in-flight queries a moment to finish; then abort them, which makes
      // them answer at once with an error rather than leave the host waiting.
      const timer = setTimeout(() => inflight.abort(new Error("provider shutting down")), drainMs);
      await written();
      clearTimeout(timer);
      resolveClosed(reason);
      return reason;
    })();
    return ending;
  }

  input.on("data", onChunk);
  input.on("end", () => {
    if (ending !== undefined) return;
    for (const event of splitter.end()) if (event.type === "line") onLine(event.text);
    void end("eof");
  });
  input.on("close", () => void end("eof"));
  input.on("error", (error) => {
    provider.log.error(`stdin error: ${describeError(error)}`);
    void end("eof");
  });
  output.on?.("error", (error) => {
    outputBroken = true;
    // Nothing more can be written: what is owed is dropped, and waiting for a drain would never end.
    waitingForDrain = false;
    flush();
    provider.log.error(`stdout error: ${describeError(error)}`);
    void end("output-error");
  });

  return { closed, close: (reason = "signal") => end(reason) };
}

/** Options of {@link runStdio}. */
export interface RunStdioOptions {
  /** Longest accepted line in bytes. Default 1 MiB. */
  maxLineBytes?: number;
}

/**
 * Serves `provider` on this process's stdin/stdout until shutdown, EOF or a signal,
 * then closes the plugins and exits 0. While it runs, console output and any stray
 * `process.stdout.write` go to stderr, so stdout carries envelopes only.
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
    // Whatever happens while draining, the process is gone within a second (R2).
    onEnd: () => setTimeout(() => process.exit(0), 950).unref(),
  });
  const onSignal = () => void server.close("signal");
  process.once("SIGTERM", onSignal);
  process.once("SIGINT", onSignal);
  const reason = await server.closed;
  provider.log.debug(`session ended (${reason})`);
  // Plugins get a short, bounded chance to close; the exit must not wait on them.
  await Promise.race([provider.close(), new Promise((resolve) => setTimeout(resolve, 200).unref())]);
  await new Promise<void>((resolve) => {
    if (stdout.writableLength === 0) resolve();
    else stdout.once("drain", () => resolve());
    setTimeout(resolve, 100).unref();
  });
  process.exit(0);
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
