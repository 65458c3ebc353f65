/**
 * `ocp-provider/testing`: run a provider in-process behind the real stdio framing.
 *
 * {@link createLinkedPair} gives two ends of a byte pipe; {@link connectInMemory}
 * serves a provider on one end and gives a test the other, so provider tests
 * exercise NDJSON, ordering and shutdown without a child process.
 */
import { PassThrough } from "node:stream";
import type { Provider } from "../provider/provider.js";
import { type CloseReason, type StdioServer, serveStdio } from "../transports/stdio/server.js";
import { readEnvelopeText } from "../wire/codec.js";
import type { Envelope } from "../wire/schemas.js";
import { PROTOCOL_VERSION } from "../wire/version.js";

/** One side of a linked pair: what it reads and what it writes. */
export interface PairEnd {
  readonly input: PassThrough;
  readonly output: PassThrough;
}

/** Two ends of an in-memory byte pipe: what one writes, the other reads. */
export function createLinkedPair(): { host: PairEnd; provider: PairEnd } {
  const toProvider = new PassThrough();
  const toHost = new PassThrough();
  return { host: { input: toHost, output: toProvider }, provider: { input: toProvider, output: toHost } };
}

/** The host's side of an in-memory connection. */
export interface InMemoryConnection {
  /** Writes a value as one NDJSON line, or a raw string as is (for malformed-input tests). */
  send(message: unknown): void;
  /** The next envelope from the provider (rejects after `timeoutMs`, default 5 s). */
  receive(timeoutMs?: number): Promise<Envelope>;
  /** Sends a message and waits for the next envelope. */
  request(message: unknown, timeoutMs?: number): Promise<Envelope>;
  /** Performs the handshake and returns the ack (or error). */
  handshake(version?: string): Promise<Envelope>;
  /** Every raw line the provider wrote, in order. */
  readonly lines: readonly string[];
  /** The provider side's stdio server. */
  readonly server: StdioServer;
  /** Ends the host's output (EOF) and waits for the provider side to finish. */
  close(): Promise<CloseReason>;
}

/** Serves `provider` over an in-memory linked pair and returns the host side. */
export function connectInMemory(provider: Provider, options: { maxLineBytes?: number } = {}): InMemoryConnection {
  const pair = createLinkedPair();
  const server = serveStdio(provider, { ...pair.provider, maxLineBytes: options.maxLineBytes });
  const lines: string[] = [];
  const queue: Envelope[] = [];
  const waiting: ((envelope: Envelope) => void)[] = [];
  let buffered = "";
  pair.host.input.setEncoding("utf8");
  pair.host.input.on("data", (chunk: string) => {
    buffered += chunk;
    let newline = buffered.indexOf("\n");
    while (newline !== -1) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      lines.push(line);
      const read = readEnvelopeText(line, "provider");
      const envelope: Envelope = read.ok ? read.value : { type: "error", message: `unreadable reply: ${read.message}` };
      const next = waiting.shift();
      if (next !== undefined) next(envelope);
      else queue.push(envelope);
      newline = buffered.indexOf("\n");
    }
  });

  function send(message: unknown): void {
    pair.host.output.write(typeof message === "string" ? message : `${JSON.stringify(message)}\n`);
  }

  function receive(timeoutMs = 5000): Promise<Envelope> {
    const ready = queue.shift();
    if (ready !== undefined) return Promise.resolve(ready);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        waiting.splice(waiting.indexOf(deliver), 1);
        reject(new Error(`no envelope from the provider within ${timeoutMs} ms`));
      }, timeoutMs);
      const deliver = (envelope: Envelope) => {
        clearTimeout(timer);
        resolve(envelope);
      };
      waiting.push(deliver);
    });
  }

  return {
    send,
    receive,
    request: (message, timeoutMs) => {
      send(message);
      return receive(timeoutMs);
    },
    handshake: (version = PROTOCOL_VERSION) => {
      send({ type: "handshake", protocol_version: version });
      return receive();
    },
    lines,
    server,
    close: () => {
      pair.host.output.end();
      return server.closed;
    },
  };
}
