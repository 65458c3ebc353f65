/**
 * The suite's view of an HTTP provider: one POST per message, the reply read as
 * plain JSON, every response body logged for schema-validity. The `OCP-Session`
 * header of a `handshake_ack` is sent back with later requests.
 */

import type { MessageLog } from "../../conformance/schema.js";
import { asReply, type Reply, type WireSession } from "../../conformance/session.js";
import { clip } from "../../host/clip.js";
import { ProviderTimeoutError } from "../../host/errors.js";
import { SESSION_HEADER } from "../../wire/version.js";
import type { HttpTarget } from "../targets.js";
import { postEnvelope } from "./client.js";

/** An HTTP provider endpoint, as a sequence of POSTs. */
export class HttpSession implements WireSession {
  readonly #target: HttpTarget;
  readonly #log: MessageLog;
  readonly #label: string;
  #session: string | undefined;
  /** Per kind of request: each HTTP request stands alone, so a hung query says nothing about shutdown. */
  readonly #unresponsive = new Map<string, string>();

  constructor(target: HttpTarget, label: string, log: MessageLog) {
    this.#target = target;
    this.#label = label;
    this.#log = log;
  }

  /** POSTs a raw body and returns status and reply, logging the body for schema-validity. */
  async post(body: string, what: string, timeoutMs: number): Promise<Reply> {
    // One timeout is evidence enough: later requests on this session fail at once
    // rather than each waiting out its own timeout against a hanging provider.
    const unanswered = this.#unresponsive.get(what);
    if (unanswered !== undefined) return { ok: false, reason: `not sent: ${unanswered}` };
    let exchange: Awaited<ReturnType<typeof postEnvelope>>;
    try {
      exchange = await postEnvelope(this.#target.url, body, {
        token: this.#target.token,
        session: this.#session,
        timeoutMs,
        what,
      });
    } catch (error) {
      if (error instanceof ProviderTimeoutError) {
        this.#unresponsive.set(what, `the provider left a ${what} unanswered for ${timeoutMs} ms`);
      }
      return { ok: false, reason: (error as Error).message };
    }
    const { status, text } = exchange;
    // 204 (shutdown) has no body, and none is owed.
    if (text.trim() !== "") this.#log.record(`${this.#label}, ${what} response (HTTP ${status})`, text.trim());
    else if (status !== 204) this.#log.record(`${this.#label}, ${what} response (HTTP ${status})`, "(empty body)");
    const reply = asReply(text);
    if (reply === undefined || !reply.ok) {
      return {
        ok: false,
        status,
        reason: `HTTP ${status} with a body that is not an envelope: ${JSON.stringify(clip(text, 80))}`,
      };
    }
    if (reply.type === "handshake_ack") this.#session = exchange.headers.get(SESSION_HEADER) ?? this.#session;
    return { ...reply, status };
  }

  request(message: unknown, what: string, timeoutMs: number): Promise<Reply> {
    return this.post(typeof message === "string" ? message : JSON.stringify(message), what, timeoutMs);
  }
}
