/**
 * Reading the main session's replies, for the checks that judge frames: what was
 * sent and what came back, the frames of a reply, and evidence that names a frame
 * ("frame 2 'Retry policy'") and summarises violations.
 *
 * Each verdict looks only at its own invariant, across every reply of the run, so
 * a provider that breaks one rule fails exactly one check.
 */
import { clip } from "../../../host/clip.js";
import type { Reply } from "../../session.js";
import type { CheckVerdict } from "./verdict.js";

/** A query the suite sent, as it was sent. */
export interface ProbeQuery {
  goal: string;
  kinds: string[];
  anchors: string[];
  max_frames: number;
  max_tokens: number;
}

/** One query and what came back; `purpose` says which check sent it. */
export interface Exchange {
  readonly purpose:
    | "probe"
    | "budget"
    | "kinds"
    | "kinds-unadvertised"
    | "max-frames"
    | "unknown-fields"
    | "pipelining";
  readonly query: ProbeQuery;
  readonly reply: Reply;
}

/** A frame as it came back, unvalidated. */
export type RawFrame = Record<string, unknown>;

/** The frames of a `frames` reply, or undefined when the reply is anything else. */
export function framesOf(reply: Reply): RawFrame[] | undefined {
  if (!reply.ok || reply.type !== "frames") return undefined;
  const frames = (reply.envelope.result as { frames?: unknown } | undefined)?.frames;
  if (!Array.isArray(frames)) return undefined;
  return frames.map((frame) => (typeof frame === "object" && frame !== null ? (frame as RawFrame) : {}));
}

/** "frame 2 'Retry policy'" (position in its reply, 1-based). */
export function nameFrame(frame: RawFrame, index: number): string {
  const title = typeof frame.title === "string" && frame.title.trim() !== "" ? frame.title : undefined;
  const label = title ?? (typeof frame.id === "string" ? `id ${frame.id}` : "untitled");
  return `frame ${index + 1} '${clip(label, 60)}'`;
}

/** Why a reply is not frames: the reason it failed, or the error message it carried. */
export function whyNotFrames(reply: Reply): string {
  if (!reply.ok) return reply.reason;
  if (reply.type === "error") return `answered with error: '${clip(String(reply.envelope.message), 160)}'`;
  return `answered with '${reply.type}' instead of frames`;
}

/** A verdict. */
export const verdict = (status: CheckVerdict["status"], evidence: string): CheckVerdict => ({ status, evidence });

/** Joins violations for evidence: the first three, and how many more. */
export function summarise(violations: readonly string[]): string {
  const unique = [...new Set(violations)];
  const more = unique.length > 3 ? `; and ${unique.length - 3} more` : "";
  return `${unique.slice(0, 3).join("; ")}${more}`;
}

/**
 * The common precondition: some exchange (of `purposes`, if given) was answered
 * with frames. Returns a failing verdict naming why not, or undefined when met.
 */
export function needFrames(exchanges: readonly Exchange[], purposes?: readonly string[]): CheckVerdict | undefined {
  const relevant = purposes === undefined ? exchanges : exchanges.filter((e) => purposes.includes(e.purpose));
  if (relevant.some((exchange) => framesOf(exchange.reply) !== undefined)) return undefined;
  const first = relevant[0];
  const why = first === undefined ? "no query was sent (the handshake failed)" : whyNotFrames(first.reply);
  return verdict("fail", `no query was answered with frames: ${why}`);
}

/** Every frame of every reply, with its position in its reply. */
export function allFrames(exchanges: readonly Exchange[]): { frame: RawFrame; index: number; exchange: Exchange }[] {
  return exchanges.flatMap((exchange) =>
    (framesOf(exchange.reply) ?? []).map((frame, index) => ({ frame, index, exchange })),
  );
}

/** A whole number of tokens. */
export function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 0;
}

/** How many replies were frames. */
export function countReplies(exchanges: readonly Exchange[]): number {
  return exchanges.filter((exchange) => framesOf(exchange.reply) !== undefined).length;
}

/** The skip of a check that found no frames to judge, naming the goals tried. */
export function noFrames(exchanges: readonly Exchange[]): CheckVerdict {
  const goals = [...new Set(exchanges.filter((e) => e.purpose === "probe").map((e) => `'${clip(e.query.goal, 40)}'`))];
  const named =
    goals.length > 4 ? `${goals.slice(0, 4).join(", ")} and ${goals.length - 4} more goals` : goals.join(", ");
  return verdict(
    "skip",
    `nothing to check: no frames came back for ${named}; give a goal the provider can match (--query)`,
  );
}
