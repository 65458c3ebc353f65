/**
 * The verdicts that read frames: frame-validity, budget-honesty, cost-honesty,
 * kinds-filter and max-frames. Pure functions of the recorded exchanges, so each
 * can be tested on hand-made replies; every violation is named concretely
 * ("frame 2 'Retry policy': token_cost 12 < o200k_base count 41").
 *
 * Each verdict looks only at its own invariant, across every reply of the run, so
 * a provider that breaks one rule fails exactly one check.
 */

import { clip } from "../host/clip.js";
import type { TokenCounter } from "../tokens/counter.js";
import type { Reply } from "./session.js";
import type { CheckName, CheckResult } from "./types.js";

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

type RawFrame = Record<string, unknown>;

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

const result = (name: CheckName, status: CheckResult["status"], evidence: string): CheckResult => ({
  name,
  status,
  evidence,
});

/** Joins violations for evidence: the first three, and how many more. */
function summarise(violations: readonly string[]): string {
  const unique = [...new Set(violations)];
  const more = unique.length > 3 ? `; and ${unique.length - 3} more` : "";
  return `${unique.slice(0, 3).join("; ")}${more}`;
}

/**
 * The common precondition: some exchange (of `purposes`, if given) was answered
 * with frames. Returns a failing result naming why not, or undefined when met.
 */
function needFrames(
  name: CheckName,
  exchanges: readonly Exchange[],
  purposes?: readonly string[],
): CheckResult | undefined {
  const relevant = purposes === undefined ? exchanges : exchanges.filter((e) => purposes.includes(e.purpose));
  if (relevant.some((exchange) => framesOf(exchange.reply) !== undefined)) return undefined;
  const first = relevant[0];
  const why = first === undefined ? "no query was sent (the handshake failed)" : whyNotFrames(first.reply);
  return result(name, "fail", `no query was answered with frames: ${why}`);
}

function allFrames(exchanges: readonly Exchange[]): { frame: RawFrame; index: number; exchange: Exchange }[] {
  return exchanges.flatMap((exchange) =>
    (framesOf(exchange.reply) ?? []).map((frame, index) => ({ frame, index, exchange })),
  );
}

/** F1–F3: every score in [0, 1], every title and citation label non-empty. */
export function frameValidity(exchanges: readonly Exchange[]): CheckResult {
  const missing = needFrames("frame-validity", exchanges);
  if (missing) return missing;
  const frames = allFrames(exchanges);
  if (frames.length === 0) return noFrames("frame-validity", exchanges);
  const violations: string[] = [];
  for (const { frame, index } of frames) {
    const name = nameFrame(frame, index);
    const { score, title, citation_label: label } = frame;
    if (typeof score !== "number" || !(score >= 0 && score <= 1)) {
      violations.push(`${name}: score ${JSON.stringify(score)} outside [0, 1] (F1)`);
    }
    if (typeof title !== "string" || title.trim() === "") {
      violations.push(`${name}: title ${JSON.stringify(title ?? null)} is empty (F2)`);
    }
    if (typeof label !== "string" || label.trim() === "") {
      violations.push(`${name}: citation_label ${JSON.stringify(label ?? null)} is empty or missing (F3)`);
    }
  }
  if (violations.length > 0) return result("frame-validity", "fail", summarise(violations));
  return result(
    "frame-validity",
    "pass",
    `${frames.length} frames in ${countReplies(exchanges)} replies: every score in [0, 1], every title and citation_label non-empty`,
  );
}

/** B1: Σ token_cost ≤ max_tokens in every reply, including the tight-budget probes. */
export function budgetHonesty(exchanges: readonly Exchange[]): CheckResult {
  const missing = needFrames("budget-honesty", exchanges, ["budget"]);
  if (missing) return missing;
  if (allFrames(exchanges).length === 0) return noFrames("budget-honesty", exchanges);
  const violations: string[] = [];
  let replies = 0;
  for (const exchange of exchanges) {
    const frames = framesOf(exchange.reply);
    if (frames === undefined) continue;
    replies += 1;
    const bad = frames.findIndex((frame) => !isCount(frame.token_cost));
    if (bad !== -1) {
      violations.push(
        `${nameFrame(frames[bad] as RawFrame, bad)}: token_cost ${JSON.stringify(frames[bad]?.token_cost ?? null)} is not a count`,
      );
      continue;
    }
    const total = frames.reduce((sum, frame) => sum + (frame.token_cost as number), 0);
    if (total > exchange.query.max_tokens) {
      violations.push(
        `max_tokens ${exchange.query.max_tokens}: Σ token_cost ${total} over ${frames.length} frames (B1)`,
      );
    }
  }
  if (violations.length > 0) return result("budget-honesty", "fail", summarise(violations));
  const budgets = [...new Set(exchanges.filter((e) => e.purpose === "budget").map((e) => e.query.max_tokens))];
  return result(
    "budget-honesty",
    "pass",
    `Σ token_cost ≤ max_tokens in all ${replies} replies (tight budgets probed: ${budgets.join(", ")})`,
  );
}

/** Re-counts each frame's content: an under-reported cost fails, an over-report is reported. */
export function costHonesty(exchanges: readonly Exchange[], counter: TokenCounter): CheckResult {
  const missing = needFrames("cost-honesty", exchanges);
  if (missing) return missing;
  const frames = allFrames(exchanges);
  if (frames.length === 0) return noFrames("cost-honesty", exchanges);
  const under: string[] = [];
  const over: string[] = [];
  const seen = new Set<string>();
  for (const { frame, index } of frames) {
    const key = JSON.stringify([frame.id, frame.content, frame.token_cost]);
    if (seen.has(key)) continue;
    seen.add(key);
    const name = nameFrame(frame, index);
    if (typeof frame.content !== "string" || !isCount(frame.token_cost)) {
      under.push(`${name}: cannot re-count (content or token_cost missing)`);
      continue;
    }
    const count = counter.count(frame.content);
    if (frame.token_cost < count)
      under.push(`${name}: token_cost ${frame.token_cost} < ${counter.tokenizer} count ${count}`);
    else if (frame.token_cost > count)
      over.push(`${name}: token_cost ${frame.token_cost} > ${counter.tokenizer} count ${count}`);
  }
  if (under.length > 0) return result("cost-honesty", "fail", summarise(under));
  const overNote = over.length > 0 ? `; ${over.length} over-reported (${summarise(over)})` : "";
  return result(
    "cost-honesty",
    "pass",
    `${seen.size} distinct frames re-counted with ${counter.tokenizer}: no cost under-reported${overNote}`,
  );
}

/** Frames only of the kinds asked for, and only of kinds the handshake advertised. */
export function kindsFilter(exchanges: readonly Exchange[], advertised: readonly string[]): CheckResult {
  const probes = exchanges.filter((e) => e.purpose === "kinds" || e.purpose === "kinds-unadvertised");
  const answered = probes.filter(
    (e) => framesOf(e.reply) !== undefined || (e.reply.ok && e.purpose === "kinds-unadvertised"),
  );
  if (answered.length === 0) {
    const why = probes[0] === undefined ? "no kinds were probed (the handshake failed)" : whyNotFrames(probes[0].reply);
    return result("kinds-filter", "fail", `no kinds probe was answered: ${why}`);
  }
  if (allFrames(exchanges).length === 0) return noFrames("kinds-filter", exchanges);
  const violations: string[] = [];
  for (const exchange of exchanges) {
    const frames = framesOf(exchange.reply) ?? [];
    frames.forEach((frame, index) => {
      const kind = String(frame.kind);
      if (exchange.query.kinds.length > 0 && !exchange.query.kinds.includes(kind)) {
        violations.push(
          `asked for kinds [${exchange.query.kinds.join(", ")}]: ${nameFrame(frame, index)} has kind '${kind}'`,
        );
      } else if (advertised.length > 0 && !advertised.includes(kind)) {
        violations.push(`${nameFrame(frame, index)} has kind '${kind}', which the handshake_ack does not advertise`);
      }
    });
  }
  if (violations.length > 0) return result("kinds-filter", "fail", summarise(violations));
  const seen = probes.map((e) => {
    const frames = framesOf(e.reply);
    const asked = `${e.query.kinds.join(", ")}${e.purpose === "kinds-unadvertised" ? " (not advertised)" : ""}`;
    return frames === undefined ? `${asked} → error` : `${asked} → ${frames.length} frames`;
  });
  return result("kinds-filter", "pass", `only the kinds asked for came back: ${seen.join("; ")}`);
}

/** No reply carries more frames than its query's max_frames. */
export function maxFrames(exchanges: readonly Exchange[]): CheckResult {
  const missing = needFrames("max-frames", exchanges, ["max-frames"]);
  if (missing) return missing;
  if (allFrames(exchanges).length === 0) return noFrames("max-frames", exchanges);
  const violations: string[] = [];
  for (const exchange of exchanges) {
    const frames = framesOf(exchange.reply);
    if (frames !== undefined && frames.length > exchange.query.max_frames) {
      violations.push(`max_frames ${exchange.query.max_frames}: ${frames.length} frames came back`);
    }
  }
  if (violations.length > 0) return result("max-frames", "fail", summarise(violations));
  const probes = exchanges
    .filter((e) => e.purpose === "max-frames")
    .map((e) => `max_frames ${e.query.max_frames} → ${framesOf(e.reply)?.length ?? "error"}`);
  return result("max-frames", "pass", `every reply within its max_frames (${probes.join(", ")})`);
}

function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 0;
}

function countReplies(exchanges: readonly Exchange[]): number {
  return exchanges.filter((exchange) => framesOf(exchange.reply) !== undefined).length;
}

function noFrames(name: CheckName, exchanges: readonly Exchange[]): CheckResult {
  const goals = [...new Set(exchanges.filter((e) => e.purpose === "probe").map((e) => `'${e.query.goal}'`))];
  return result(
    name,
    "skip",
    `nothing to check: no frames came back for ${goals.join(", ")}; give a goal the provider can match (--query)`,
  );
}
