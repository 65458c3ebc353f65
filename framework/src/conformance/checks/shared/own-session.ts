/**
 * For the checks that talk to the provider on a session of their own: opening one
 * of the transport the check needs, and (over stdio) the handshake that must come first.
 */
import { HttpSession } from "../../../transports/http/conformance-session.js";
import { StdioSession } from "../../../transports/stdio/conformance-session.js";
import type { CheckContext } from "./check.js";
import { HANDSHAKE } from "./main-session.js";

/**
 * A provider process for a stdio check: a fresh one, or one that earlier checks left
 * alive and clean (see the stdio suite); the suite stops it afterwards or lends it on.
 */
export function openStdio(ctx: CheckContext, label: string): StdioSession {
  const session = ctx.open(label);
  if (!(session instanceof StdioSession)) throw new Error(`a stdio check was run over ${ctx.target.transport}`);
  return session;
}

/** A sequence of requests of an HTTP check's own. */
export function openHttp(ctx: CheckContext, label: string): HttpSession {
  const session = ctx.open(label);
  if (!(session instanceof HttpSession)) throw new Error(`an HTTP check was run over ${ctx.target.transport}`);
  return session;
}

/**
 * Handshakes on an own session, unless the process has acked one already (an earlier
 * check's); a failure explains why the check could not run.
 */
export async function handshakeFirst(session: StdioSession, ctx: CheckContext): Promise<string | undefined> {
  if (session.acked) return undefined;
  const reply = await session.request(HANDSHAKE, "handshake", ctx.handshakeTimeoutMs);
  if (reply.ok && reply.type === "handshake_ack") return undefined;
  return `not run: the handshake failed: ${reply.ok ? `answered '${reply.type}'` : reply.reason}`;
}
