/**
 * connectHttp(): a provider over streamable HTTP — POST one envelope, read one back.
 *
 * The `OCP-Session` header of the `handshake_ack` response is sent back with every
 * later request, so the provider keeps this host's handshake state. Every HTTP
 * provider is egress to the host, whatever its `data_flow` says (C4).
 */

import { type Channel, type ConnectOptions, openConnection, type ProviderConnection } from "../../host/connection.js";
import { ProtocolViolationError, ProviderExitedError, ProviderTimeoutError } from "../../host/errors.js";
import { SESSION_HEADER } from "../../wire/version.js";

/** The session header of the ocp-provider HTTP transport. */

/** Options of {@link connectHttp}. */
export interface HttpConnectOptions extends ConnectOptions {
  /** Sent as `Authorization: Bearer <token>`. */
  token?: string;
}

/** The raw answer to one POST: status, body text, and the body parsed as JSON when it is JSON. */
export interface HttpExchange {
  readonly status: number;
  readonly text: string;
  readonly json: { ok: true; value: unknown } | { ok: false; message: string };
  readonly headers: Headers;
}

/** Options of {@link postEnvelope}. */
export interface PostOptions {
  token?: string;
  session?: string;
  timeoutMs: number;
  /** What is being sent, for messages ("query"). */
  what: string;
}

/**
 * POSTs `body` (already serialised) to `url` and reads the answer, whatever it is.
 * Rejects only when there is no answer: a timeout, or the server is unreachable.
 */
export async function postEnvelope(url: string, body: string, options: PostOptions): Promise<HttpExchange> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  if (options.session !== undefined) headers[SESSION_HEADER] = options.session;
  let response: Response;
  let text: string;
  try {
    response = await fetch(url, { method: "POST", headers, body, signal: AbortSignal.timeout(options.timeoutMs) });
    text = await response.text();
  } catch (error) {
    if ((error as Error).name === "TimeoutError") throw new ProviderTimeoutError(options.what, options.timeoutMs);
    const cause = (error as { cause?: { message?: string } }).cause?.message ?? (error as Error).message;
    throw new ProviderExitedError(`cannot reach the provider at ${url}: ${cause}`);
  }
  let json: HttpExchange["json"];
  try {
    json = { ok: true, value: JSON.parse(text) };
  } catch (error) {
    json = { ok: false, message: (error as Error).message };
  }
  return { status: response.status, text, json, headers: response.headers };
}

/** An HTTP channel: every request is one POST. */
function httpChannel(url: string, options: { token?: string; graceMs: number }): Channel {
  let session: string | undefined;
  let gone = false;
  return {
    get gone() {
      return gone;
    },
    stderr: () => "",
    async request(line, what, timeoutMs) {
      const exchange = await postEnvelope(url, line, { token: options.token, session, timeoutMs, what });
      if (!exchange.json.ok) {
        throw new ProtocolViolationError(
          `HTTP ${exchange.status} reply to the ${what} is not JSON: ${JSON.stringify(exchange.text.slice(0, 120))}`,
        );
      }
      if (what === "handshake") session = exchange.headers.get(SESSION_HEADER) ?? undefined;
      return { value: exchange.json.value, status: exchange.status };
    },
    async close() {
      if (gone) return;
      gone = true;
      // Best effort: the server may already be gone, and shutdown has no reply to wait for.
      await postEnvelope(url, JSON.stringify({ type: "shutdown" }), {
        token: options.token,
        session,
        timeoutMs: options.graceMs,
        what: "shutdown",
      }).catch(() => {});
    },
  };
}

/**
 * Connects to the provider at `url` and performs the handshake. Queries to it
 * always need consent (C4): pass a `consent` gate that has recorded it.
 */
export async function connectHttp(url: string, options: HttpConnectOptions = {}): Promise<ProviderConnection> {
  const target = new URL(url).href;
  const channel = httpChannel(target, { token: options.token, graceMs: 2000 });
  return openConnection(channel, { transport: "http", target }, options);
}
