/**
 * One query, shown as the provider answered it: what `ocp inspect --query` prints
 * before the checks. The reply is kept raw — a lying provider's frames are shown
 * as sent, overrun budget and all, which is the point of looking.
 */

import { TRANSPORTS } from "../transports/table.js";
import type { ConformanceTarget } from "../transports/targets.js";
import { PROTOCOL_VERSION } from "../wire/version.js";
import { MessageLog } from "./schema.js";
import type { Reply } from "./session.js";
import type { TransportSuite } from "./suite.js";

/** Options of {@link sampleQuery}. */
export interface SampleOptions {
  /** The goal (and query_text) to ask. */
  goal: string;
  /** Default 1024. */
  maxTokens?: number;
  /** Default 8. */
  maxFrames?: number;
  handshakeTimeoutMs?: number;
  queryTimeoutMs?: number;
}

/** What came back for one query. */
export interface Sample {
  readonly query: {
    goal: string;
    query_text: string;
    kinds: string[];
    anchors: string[];
    max_frames: number;
    max_tokens: number;
  };
  /** The raw reply, or why there is none. */
  readonly reply: Reply;
  /** The provider's stderr during the session (stdio; empty for HTTP). */
  readonly stderr: string;
}

/** Handshakes with `target`, sends one query, and returns the raw reply and the provider's stderr. */
export async function sampleQuery(target: ConformanceTarget, options: SampleOptions): Promise<Sample> {
  const query = {
    goal: options.goal,
    query_text: options.goal,
    kinds: [],
    anchors: [],
    max_frames: options.maxFrames ?? 8,
    max_tokens: options.maxTokens ?? 1024,
  };
  const log = new MessageLog();
  const suite = (await TRANSPORTS[target.transport].conformance()) as TransportSuite;
  const session = suite.open(target, "sample", log);
  let reply: Reply;
  try {
    const ack = await session.request(
      { type: "handshake", protocol_version: PROTOCOL_VERSION },
      "handshake",
      options.handshakeTimeoutMs ?? 10_000,
    );
    reply =
      ack.ok && ack.type === "handshake_ack"
        ? await session.request({ type: "query", query }, "query", options.queryTimeoutMs ?? 30_000)
        : { ok: false, reason: `the handshake failed: ${ack.ok ? `answered '${ack.type}'` : ack.reason}` };
  } catch (error) {
    await suite.leave(session);
    throw error;
  }
  // Left as a host leaves it; over stdio, the stderr is read before the process is stopped.
  return { query, reply, stderr: await suite.leave(session) };
}
