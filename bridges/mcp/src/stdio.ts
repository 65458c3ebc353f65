/**
 * The bridge's stdio transport: MCP's JSON-RPC messages, one per line, on a pair of
 * streams — the SDK's `Transport` interface, over the framework's NDJSON splitter.
 *
 * The SDK's own `StdioServerTransport` closes itself when its read buffer passes
 * 10 MiB (so one long line ended the bridge, silently, exit 0), answers a line that is
 * not JSON-RPC with nothing (the client waits for its own timeout), and takes on every
 * request it reads at once. This one:
 *
 * - answers a line over `maxLineBytes` with a JSON-RPC parse error (id null), skips it
 *   without buffering it, and reads on;
 * - answers a line that is not JSON with a parse error and one that is not a JSON-RPC
 *   message with an invalid-request error (with its id when it has one);
 * - has at most `maxInFlight` requests taken on and unanswered: beyond that the lines
 *   already read wait and the input is paused, so a client that floods the bridge
 *   cannot make it run an unbounded number of queries at once.
 * - takes no more lines while the output has not taken the replies written so far.
 * Each refusal is also one line on the logger (never the line's content).
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { type JSONRPCMessage, JSONRPCMessageSchema, type RequestId } from "@modelcontextprotocol/sdk/types.js";
import { type FrameEvent, LineSplitter } from "ocp-provider/ndjson";

/** The readable side: what we need of a Node readable stream. */
export interface McpByteSource {
  on(event: "data", listener: (chunk: Buffer) => void): unknown;
  on(event: "error", listener: (error: Error) => void): unknown;
  off(event: "data", listener: (chunk: Buffer) => void): unknown;
  off(event: "error", listener: (error: Error) => void): unknown;
  pause(): unknown;
  resume(): unknown;
}

/** The writable side. */
export interface McpByteSink {
  write(chunk: string): boolean;
  once(event: "drain", listener: () => void): unknown;
}

/** Options of {@link McpStdioTransport}. */
export interface McpStdioOptions {
  /** Longest accepted line in bytes; longer ones get a parse error and are skipped. Default 10 MiB (the SDK's). */
  maxLineBytes?: number;
  /** Most requests taken on and not yet answered; default 32. */
  maxInFlight?: number;
  /** Where a refused line is reported (one line each); default nowhere. */
  warn?: (message: string) => void;
}

/** JSON-RPC's code for a message that is not JSON (or could not be read as such). */
export const PARSE_ERROR = -32700;
/** JSON-RPC's code for JSON that is not a valid message. */
export const INVALID_REQUEST = -32600;

const idKey = (id: RequestId) => `${typeof id}:${id}`;

/** The id of a JSON object with a method (a request, however malformed), for an error reply; null otherwise. */
function requestIdOf(value: unknown): RequestId | null {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  // A response from the client (no method) is not a request to answer, even with an id.
  if (!("method" in value)) return null;
  const { id } = value as { id?: unknown };
  return typeof id === "string" || (typeof id === "number" && Number.isSafeInteger(id)) ? id : null;
}

/** An MCP server transport over NDJSON on injected streams (the process's stdin and stdout in `serveMcp`). */
export class McpStdioTransport implements Transport {
  onclose?: Transport["onclose"];
  onerror?: Transport["onerror"];
  onmessage?: Transport["onmessage"];

  readonly #input: McpByteSource;
  readonly #output: McpByteSink;
  readonly #splitter: LineSplitter;
  readonly #maxInFlight: number;
  readonly #warn: (message: string) => void;
  /** Requests taken on and not yet answered (or cancelled), by id. */
  readonly #inFlight = new Set<string>();
  /** Lines read but not yet taken on: at most one read's worth, while taking more is held back. */
  readonly #waiting: FrameEvent[] = [];
  /** Writes the output has not taken yet: they resolve at its next `drain`. */
  readonly #unwritten: (() => void)[] = [];
  #taking = false;
  #paused = false;
  #closed = false;

  constructor(input: McpByteSource, output: McpByteSink, options: McpStdioOptions = {}) {
    this.#input = input;
    this.#output = output;
    this.#splitter = new LineSplitter(options.maxLineBytes ?? 10 * 1024 * 1024);
    this.#maxInFlight = options.maxInFlight ?? 32;
    this.#warn = options.warn ?? (() => {});
  }

  /** Starts reading (the SDK's `connect()` calls it). */
  async start(): Promise<void> {
    this.#input.on("data", this.#onData);
    this.#input.on("error", this.#onError);
  }

  /** Writes one message as a line; resolves once the output has taken it. */
  send(message: JSONRPCMessage): Promise<void> {
    if (("result" in message || "error" in message) && message.id !== undefined) {
      this.#inFlight.delete(idKey(message.id));
    }
    const written = this.#write(message);
    this.#takeWaiting();
    return written;
  }

  /** Stops reading; the streams stay open (the process owns them). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#input.off("data", this.#onData);
    this.#input.off("error", this.#onError);
    this.#input.pause();
    this.#waiting.length = 0;
    this.onclose?.();
  }

  readonly #onData = (chunk: Buffer) => {
    for (const event of this.#splitter.push(chunk)) this.#waiting.push(event);
    this.#takeWaiting();
  };

  readonly #onError = (error: Error) => this.onerror?.(error);

  readonly #onDrain = () => {
    for (const resolve of this.#unwritten.splice(0)) resolve();
    this.#takeWaiting();
  };

  #write(message: unknown): Promise<void> {
    if (this.#output.write(`${JSON.stringify(message)}\n`) && this.#unwritten.length === 0) return Promise.resolve();
    return new Promise((resolve) => {
      // One drain listener for all the writes waiting on it.
      if (this.#unwritten.length === 0) this.#output.once("drain", this.#onDrain);
      this.#unwritten.push(resolve);
    });
  }

  /** No more lines are taken on while the in-flight bound is reached or the output holds unwritten replies. */
  #held(): boolean {
    return this.#inFlight.size >= this.#maxInFlight || this.#unwritten.length > 0;
  }

  /** Takes on waiting lines while nothing holds them back; pauses the input while something does. */
  #takeWaiting(): void {
    // A reply written while a line is taken on (the SDK answers some at once) must not start a second loop.
    if (this.#taking) return;
    this.#taking = true;
    try {
      while (this.#waiting.length > 0 && !this.#held() && !this.#closed)
        this.#take(this.#waiting.shift() as FrameEvent);
    } finally {
      this.#taking = false;
    }
    const hold = this.#waiting.length > 0 || this.#held();
    if (hold && !this.#paused && !this.#closed) {
      this.#paused = true;
      this.#input.pause();
    } else if (!hold && this.#paused) {
      this.#paused = false;
      this.#input.resume();
    }
  }

  #take(event: FrameEvent): void {
    if (event.type === "overflow") {
      this.#refuse(null, PARSE_ERROR, `Parse error: a line over ${event.limit} bytes, skipped unread`);
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(event.text);
    } catch {
      this.#refuse(null, PARSE_ERROR, "Parse error: a line that is not JSON");
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(value);
    if (!parsed.success) {
      this.#refuse(requestIdOf(value), INVALID_REQUEST, "Invalid Request: a line that is not a JSON-RPC 2.0 message");
      return;
    }
    const message = parsed.data;
    if ("method" in message && "id" in message) this.#inFlight.add(idKey(message.id));
    if ("method" in message && message.method === "notifications/cancelled") {
      // The SDK sends no reply to a cancelled request: it is no longer in flight.
      const cancelled = (message.params as { requestId?: RequestId } | undefined)?.requestId;
      if (cancelled !== undefined) this.#inFlight.delete(idKey(cancelled));
    }
    this.onmessage?.(message);
  }

  #refuse(id: RequestId | null, code: number, message: string): void {
    this.#warn(`mcp stdio: ${message} (${code}); answered with an error, and reading on`);
    void this.#write({ jsonrpc: "2.0", id, error: { code, message } });
  }
}
