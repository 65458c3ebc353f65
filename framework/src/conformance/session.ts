/**
 * The suite's view of a provider: send a message, get the raw reply (or the
 * reason there is none). Checks read replies as plain JSON, not through the
 * tolerant reader, so they can name exactly what is wrong with them.
 *
 * Each transport's session lives in its folder under `transports/`.
 */

import { PROVIDER_ENVELOPE_TYPES } from "../wire/codec.js";

/** A reply as the checks see it. */
export type Reply =
  | { ok: true; type: string; envelope: Record<string, unknown>; status?: number }
  | { ok: false; reason: string; status?: number };

/** Something the query checks can talk to: a stdio process or an HTTP endpoint. */
export interface WireSession {
  /** Sends one message (a value is serialised; a string is sent as is) and waits for its reply. */
  request(message: unknown, what: string, timeoutMs: number): Promise<Reply>;
  /** Sends several messages in one write and collects as many replies (stdio only). */
  requestMany?(messages: readonly unknown[], what: string, timeoutMs: number): Promise<Reply[]>;
}

const providerTypes: readonly string[] = PROVIDER_ENVELOPE_TYPES;

/** Reads a line as a reply: a JSON object whose `type` a provider may send. */
export function asReply(text: string): Reply | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const type = (value as { type?: unknown }).type;
  if (typeof type !== "string" || !providerTypes.includes(type)) return undefined;
  return { ok: true, type, envelope: value as Record<string, unknown> };
}
