/**
 * The checks that ask questions, over any transport: probe queries find a goal
 * the provider can answer, then tight budgets, kind filters, frame limits, a
 * query with unknown fields and (stdio) a pipelined batch are sent on one
 * session, and every reply is judged by the verdicts in frame-checks.ts.
 */
import type { TokenCounter } from "../tokens/counter.js";
import { FRAME_KINDS } from "../wire/schemas.js";
import {
  budgetHonesty,
  costHonesty,
  type Exchange,
  framesOf,
  frameValidity,
  kindsFilter,
  maxFrames,
  type ProbeQuery,
  whyNotFrames,
} from "./frame-checks.js";
import type { WireSession } from "./session.js";
import type { CheckResult } from "./types.js";

/** Probe goals when none are given: generic enough that most corpora match one. */
export const DEFAULT_GOALS = ["how does it work", "error handling", "configuration options", "example usage"];

/** Budgets that force an honest provider to leave things out. */
const TIGHT_BUDGETS = [256, 32, 8, 1, 0];
const ROOMY = { max_frames: 8, max_tokens: 4096 };

/** What the query checks need. */
export interface QueryCheckContext {
  readonly session: WireSession;
  /** The kinds the handshake_ack advertised. */
  readonly advertised: readonly string[];
  readonly goals: readonly string[];
  readonly queryTimeoutMs: number;
  readonly counter: TokenCounter;
}

const query = (goal: string, fields: Partial<ProbeQuery> = {}): ProbeQuery => ({
  goal,
  kinds: [],
  anchors: [],
  ...ROOMY,
  ...fields,
});

/**
 * Runs frame-validity, budget-honesty, cost-honesty, kinds-filter, max-frames,
 * unknown-fields and (when the session can pipeline) pipelining.
 */
export async function runQueryChecks(context: QueryCheckContext): Promise<CheckResult[]> {
  const { session, queryTimeoutMs } = context;
  const exchanges: Exchange[] = [];
  const ask = async (purpose: Exchange["purpose"], sent: ProbeQuery) => {
    const reply = await session.request({ type: "query", query: sent }, "query", queryTimeoutMs);
    const exchange: Exchange = { purpose, query: sent, reply };
    exchanges.push(exchange);
    return exchange;
  };

  let best = context.goals[0] ?? (DEFAULT_GOALS[0] as string);
  let bestCount = -1;
  for (const goal of context.goals) {
    const count = framesOf((await ask("probe", query(goal))).reply)?.length ?? -1;
    if (count > bestCount) [best, bestCount] = [goal, count];
  }
  for (const max_tokens of TIGHT_BUDGETS) await ask("budget", query(best, { max_tokens }));
  const known: readonly string[] = FRAME_KINDS;
  for (const kind of context.advertised.filter((k) => known.includes(k)))
    await ask("kinds", query(best, { kinds: [kind] }));
  const unadvertised = FRAME_KINDS.find((kind) => !context.advertised.includes(kind));
  if (unadvertised !== undefined) await ask("kinds-unadvertised", query(best, { kinds: [unadvertised] }));
  for (const max_frames of [1, 0]) await ask("max-frames", query(best, { max_frames }));
  const unknownFields = await askWithUnknownFields(session, best, queryTimeoutMs);
  exchanges.push(unknownFields);
  const pipelining =
    session.requestMany !== undefined
      ? await checkPipelining(session, best, queryTimeoutMs, exchanges)
      : {
          name: "pipelining" as const,
          status: "skip" as const,
          evidence: "stdio only: over HTTP each request has its own reply",
        };

  return [
    frameValidity(exchanges),
    budgetHonesty(exchanges),
    costHonesty(exchanges, context.counter),
    kindsFilter(exchanges, context.advertised),
    maxFrames(exchanges),
    unknownFieldsVerdict(unknownFields),
    pipelining,
  ];
}

/** A query carrying fields this protocol version does not define, at both levels. */
async function askWithUnknownFields(session: WireSession, goal: string, timeoutMs: number): Promise<Exchange> {
  const sent = query(goal);
  const envelope = {
    type: "query",
    trace_id: "ocp-inspect-unknown-fields",
    query: { ...sent, x_future_hint: { nested: [1, "two", null] }, priority: "high" },
  };
  return { purpose: "unknown-fields", query: sent, reply: await session.request(envelope, "query", timeoutMs) };
}

function unknownFieldsVerdict(exchange: Exchange): CheckResult {
  const frames = framesOf(exchange.reply);
  if (frames !== undefined) {
    return {
      name: "unknown-fields",
      status: "pass",
      evidence: `a query with unknown fields (envelope and query level) was answered with ${frames.length} frames`,
    };
  }
  return {
    name: "unknown-fields",
    status: "fail",
    evidence: `a query with unknown fields (trace_id, query.x_future_hint, query.priority) was not answered: ${whyNotFrames(exchange.reply)}; readers must ignore fields they do not know`,
  };
}

const ids = (exchange: Exchange) => (framesOf(exchange.reply) ?? []).map((frame) => String(frame.id));

/**
 * Queries asking for 0, 1, 2 and 3 frames, first one at a time, then written at
 * once: the batch must get as many replies, each equal (by frame ids) to the
 * one-at-a-time answer in the same position.
 */
async function checkPipelining(
  session: WireSession,
  goal: string,
  timeoutMs: number,
  exchanges: Exchange[],
): Promise<CheckResult> {
  const batch = [0, 1, 2, 3].map((max_frames) => query(goal, { max_frames }));
  const alone: Exchange[] = [];
  for (const sent of batch) {
    const exchange: Exchange = {
      purpose: "pipelining",
      query: sent,
      reply: await session.request({ type: "query", query: sent }, "query", timeoutMs),
    };
    alone.push(exchange);
  }
  exchanges.push(...alone);
  const failed = alone.find((exchange) => framesOf(exchange.reply) === undefined);
  if (failed !== undefined) {
    return {
      name: "pipelining",
      status: "fail",
      evidence: `a query sent alone was not answered: ${whyNotFrames(failed.reply)}`,
    };
  }
  const replies = await (session.requestMany as NonNullable<WireSession["requestMany"]>)(
    batch.map((sent) => ({ type: "query", query: sent })),
    "pipelined queries",
    timeoutMs,
  );
  const together = replies.map(
    (reply, index): Exchange => ({ purpose: "pipelining", query: batch[index] as ProbeQuery, reply }),
  );
  const missing = together.find((exchange) => framesOf(exchange.reply) === undefined);
  if (missing !== undefined) {
    return {
      name: "pipelining",
      status: "fail",
      evidence: `${batch.length} queries written at once: ${whyNotFrames(missing.reply)}`,
    };
  }
  const expected = alone.map(ids);
  const got = together.map(ids);
  for (let i = 0; i < batch.length; i++) {
    if (JSON.stringify(expected[i]) !== JSON.stringify(got[i])) {
      const at = got.findIndex((list) => JSON.stringify(list) === JSON.stringify(expected[i]));
      const hint = at !== -1 && at !== i ? ` (it came back as reply ${at + 1})` : "";
      return {
        name: "pipelining",
        status: "fail",
        evidence: `${batch.length} queries written at once: reply ${i + 1} is not the answer to query ${i + 1} (max_frames ${i})${hint}; replies must come in request order`,
      };
    }
  }
  // Only replies known to answer their query may be judged against it by the other checks.
  exchanges.push(...together);
  const distinct = new Set(expected.map((list) => JSON.stringify(list))).size;
  const order =
    distinct > 1
      ? `in request order (frame counts ${expected.map((list) => list.length).join(", ")})`
      : "(order not distinguishable: the goal matched fewer than two frames)";
  return {
    name: "pipelining",
    status: "pass",
    evidence: `${batch.length} queries written at once got ${batch.length} replies ${order}`,
  };
}
