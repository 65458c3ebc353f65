/**
 * Talking to a provider under test the way a host does, over stdio or HTTP, with
 * every envelope it sends back checked against the reference schema on arrival.
 */
import type { Child } from "./child.js";
import { assertReferenceValid } from "./reference-schema.js";

/** The protocol version the providers speak. */
export const PROTOCOL_VERSION = "ocp/1.0-draft";

/**
 * Parses `child`'s next stdout line (waiting up to `timeoutMs`, the child's default
 * when omitted) and throws unless it is an envelope valid under the reference schema.
 */
export async function nextEnvelope(child: Child, timeoutMs?: number) {
  const message = JSON.parse(await child.nextLine(timeoutMs));
  assertReferenceValid(message);
  return message;
}

/** Options of `handshake`. */
export interface HandshakeOptions {
  /** The version to ask for; `PROTOCOL_VERSION` by default. */
  readonly protocolVersion?: string;
  /** How long to wait for the reply; the child's default when omitted. */
  readonly timeoutMs?: number;
}

/** Sends a handshake to `child` over stdio and returns its (schema-checked) reply. */
export function handshake(child: Child, { protocolVersion = PROTOCOL_VERSION, timeoutMs }: HandshakeOptions = {}) {
  child.send({ type: "handshake", protocol_version: protocolVersion });
  return nextEnvelope(child, timeoutMs);
}

/**
 * POSTs `body` (a value as JSON, a string as is) as `application/json` (unless `headers`
 * say otherwise) to a provider's HTTP endpoint and throws unless the response body is an
 * envelope valid under the reference schema.
 */
export async function postEnvelope(url: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const message = JSON.parse(await response.text());
  assertReferenceValid(message);
  return { status: response.status, message };
}
