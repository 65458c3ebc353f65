/**
 * The main session, shared by the checks that judge its replies: one handshake,
 * then probe queries that find a goal the provider can answer (probe-goals.ts), tight
 * budgets, kind filters, frame limits, a query with unknown fields and (where the
 * session can pipeline) a pipelined batch. Each step runs once per run, however many
 * checks read it; each check's verdict is its own module.
 */
import type { TokenizerName } from "../../../tokens/registry.js";
import { readTokenizerOffer } from "../../../wire/extensions.js";
import type { ProviderInfo } from "../../../wire/schemas.js";
import { FRAME_KINDS } from "../../../wire/schemas.js";
import { PROTOCOL_VERSION } from "../../../wire/version.js";
import type { MessageLog } from "../../schema.js";
import type { Reply, WireSession } from "../../session.js";
import { type Exchange, framesOf, type ProbeQuery } from "./frames.js";
import { DEFAULT_GOALS, ENOUGH_FRAMES, secondRoundGoals } from "./probe-goals.js";
import type { CheckVerdict } from "./verdict.js";

export { DEFAULT_GOALS };

/** The handshake every session opens with. */
export const HANDSHAKE = { type: "handshake", protocol_version: PROTOCOL_VERSION };

/** The evidence of a check not run because the provider never answered a handshake. */
export const NEVER_STARTED = "not run: the provider never answered a handshake (see handshake)";

/** Budgets that force an honest provider to leave things out. */
const TIGHT_BUDGETS = [256, 32, 8, 1, 0];
const ROOMY = { max_frames: 8, max_tokens: 4096 };

/** The parts of an ack the other checks need. */
export interface AckSummary {
  readonly provider: ProviderInfo | undefined;
  readonly kinds: string[];
}

/** The main session's handshake. */
export interface MainHandshake {
  readonly reply: Reply;
  readonly elapsedMs: number;
  /** Set whenever a `handshake_ack` came back at all, even a failing one, so the query checks still run. */
  readonly ack?: AckSummary;
  /** No reply at all: the provider cannot start, died, or nothing listens there. */
  readonly neverAnswered: boolean;
  /** When the handshake asked for a tokenizer: the one the provider says the session counts in. */
  readonly negotiated?: string;
}

/** The pipelining step: the batch sent one at a time, then at once (if every lone query was answered). */
export interface PipelineRun {
  readonly batch: readonly ProbeQuery[];
  readonly alone: readonly Exchange[];
  readonly together?: readonly Exchange[];
}

/** The main session's probe queries, or why they were not sent. */
export type MainQueries =
  | {
      readonly ran: true;
      /** Every exchange the frame verdicts judge, in the order sent. */
      readonly exchanges: readonly Exchange[];
      readonly advertised: readonly string[];
      readonly unknownFields: Exchange;
      /** Absent where the session cannot pipeline. */
      readonly pipelining?: PipelineRun;
    }
  | { readonly ran: false; readonly notRun: CheckVerdict };

/** What the main session runs with. */
export interface MainSessionOptions {
  readonly goals: readonly string[];
  readonly handshakeTimeoutMs: number;
  readonly queryTimeoutMs: number;
  /** Asks the provider to count in this tokenizer (the tokenizer extension); absent: the protocol's own handshake. */
  readonly negotiate?: TokenizerName;
  /** Where an ack answering that request is marked, so schema-validity allows its extension fields. */
  readonly log?: MessageLog;
}

const query = (goal: string, fields: Partial<ProbeQuery> = {}): ProbeQuery => ({
  goal,
  kinds: [],
  anchors: [],
  ...ROOMY,
  ...fields,
});

const nonEmpty = (value: unknown): value is string => typeof value === "string" && value.trim() !== "";

/** The parts of a `handshake_ack` the query checks need, or undefined for any other reply. */
function readAck(reply: Reply): AckSummary | undefined {
  if (!reply.ok || reply.type !== "handshake_ack") return undefined;
  const envelope = reply.envelope as {
    provider?: { name?: unknown; version?: unknown; data_flow?: unknown };
    capabilities?: { query?: { kinds?: unknown } };
  };
  const rawKinds = envelope.capabilities?.query?.kinds;
  const kinds = Array.isArray(rawKinds) ? rawKinds.filter((kind): kind is string => typeof kind === "string") : [];
  const provider = envelope.provider;
  const info =
    nonEmpty(provider?.name) && nonEmpty(provider?.version)
      ? ({ name: provider.name, version: provider.version, data_flow: provider.data_flow } as ProviderInfo)
      : undefined;
  return { provider: info, kinds };
}

/** Frame ids of a reply, to compare answers. */
const ids = (exchange: Exchange) => (framesOf(exchange.reply) ?? []).map((frame) => String(frame.id));

/** The first position where the batch's reply is not the lone answer (by frame ids), or -1. */
export function firstMismatch(alone: readonly Exchange[], together: readonly Exchange[]): number {
  return alone.findIndex((exchange, i) => {
    const other = together[i];
    return other === undefined || JSON.stringify(ids(exchange)) !== JSON.stringify(ids(other));
  });
}

/** Frame ids of each reply, for evidence. */
export const idLists = (exchanges: readonly Exchange[]): string[][] => exchanges.map(ids);

/** The main session of a run; the suite stops its process (if any) when the main checks are done. */
export class MainSession {
  readonly session: WireSession;
  readonly #options: MainSessionOptions;
  #handshake: Promise<MainHandshake> | undefined;
  #queries: Promise<MainQueries> | undefined;

  constructor(session: WireSession, options: MainSessionOptions) {
    this.session = session;
    this.#options = options;
  }

  /** The handshake, sent once. */
  handshake(): Promise<MainHandshake> {
    this.#handshake ??= (async () => {
      const { negotiate, log } = this.#options;
      const envelope = negotiate === undefined ? HANDSHAKE : { ...HANDSHAKE, tokenizers: [negotiate] };
      const started = performance.now();
      const reply = await this.session.request(envelope, "handshake", this.#options.handshakeTimeoutMs);
      const elapsedMs = performance.now() - started;
      const ack = readAck(reply);
      const neverAnswered = !reply.ok && reply.status === undefined;
      const offer =
        negotiate !== undefined && ack !== undefined && reply.ok ? readTokenizerOffer(reply.envelope) : undefined;
      if (offer !== undefined && reply.ok) log?.allowTokenizerOffer(reply.envelope);
      return {
        reply,
        elapsedMs,
        neverAnswered,
        ...(ack !== undefined ? { ack } : {}),
        ...(offer !== undefined ? { negotiated: offer.tokenizer } : {}),
      };
    })();
    return this.#handshake;
  }

  /** The probe queries, sent once after the handshake; not sent without an ack. */
  queries(): Promise<MainQueries> {
    this.#queries ??= this.#runQueries();
    return this.#queries;
  }

  /** The probe queries if some check has sent them, without sending them now (the session may be gone). */
  queriesSent(): Promise<MainQueries> | undefined {
    return this.#queries;
  }

  async #runQueries(): Promise<MainQueries> {
    const { ack, neverAnswered } = await this.handshake();
    if (ack === undefined) {
      const evidence = neverAnswered ? NEVER_STARTED : "not run: the handshake failed (see handshake)";
      return { ran: false, notRun: { status: "not-run", evidence } };
    }
    const { goals, queryTimeoutMs } = this.#options;
    const exchanges: Exchange[] = [];
    const ask = async (purpose: Exchange["purpose"], sent: ProbeQuery): Promise<Exchange> => {
      const reply = await this.session.request({ type: "query", query: sent }, "query", queryTimeoutMs);
      const exchange: Exchange = { purpose, query: sent, reply };
      exchanges.push(exchange);
      return exchange;
    };

    let best = goals[0] ?? (DEFAULT_GOALS[0] as string);
    let bestCount = -1;
    const probe = async (goal: string) => {
      const count = framesOf((await ask("probe", query(goal))).reply)?.length ?? -1;
      if (count > bestCount) [best, bestCount] = [goal, count];
    };
    for (const goal of goals) await probe(goal);
    // Few frames, from a provider that answers at all: look further, with what the first round revealed.
    const answering = exchanges.some((exchange) => exchange.reply.ok);
    if (bestCount < ENOUGH_FRAMES && answering) {
      const titles = exchanges
        .flatMap((exchange) => framesOf(exchange.reply) ?? [])
        .map((frame) => frame.title)
        .filter((title): title is string => typeof title === "string");
      for (const goal of secondRoundGoals(titles, ack, goals)) {
        await probe(goal);
        if (bestCount >= ENOUGH_FRAMES) break;
      }
    }
    for (const max_tokens of TIGHT_BUDGETS) await ask("budget", query(best, { max_tokens }));
    const known: readonly string[] = FRAME_KINDS;
    for (const kind of ack.kinds.filter((k) => known.includes(k))) await ask("kinds", query(best, { kinds: [kind] }));
    const unadvertised = FRAME_KINDS.find((kind) => !ack.kinds.includes(kind));
    if (unadvertised !== undefined) await ask("kinds-unadvertised", query(best, { kinds: [unadvertised] }));
    for (const max_frames of [1, 0]) await ask("max-frames", query(best, { max_frames }));
    const unknownFields = await this.#askWithUnknownFields(best);
    exchanges.push(unknownFields);
    const pipelining = this.session.requestMany !== undefined ? await this.#pipeline(best, exchanges) : undefined;
    return {
      ran: true,
      exchanges,
      advertised: ack.kinds,
      unknownFields,
      ...(pipelining !== undefined ? { pipelining } : {}),
    };
  }

  /** A query carrying fields this protocol version does not define, at both levels. */
  async #askWithUnknownFields(goal: string): Promise<Exchange> {
    const sent = query(goal);
    const envelope = {
      type: "query",
      trace_id: "ocp-inspect-unknown-fields",
      query: { ...sent, x_future_hint: { nested: [1, "two", null] }, priority: "high" },
    };
    const reply = await this.session.request(envelope, "query", this.#options.queryTimeoutMs);
    return { purpose: "unknown-fields", query: sent, reply };
  }

  /**
   * Queries asking for 0, 1, 2 and 3 frames, first one at a time, then (if each was
   * answered) written at once. Only batch replies known to answer their query join
   * `exchanges`, to be judged against it by the other checks.
   */
  async #pipeline(goal: string, exchanges: Exchange[]): Promise<PipelineRun> {
    const timeoutMs = this.#options.queryTimeoutMs;
    const batch = [0, 1, 2, 3].map((max_frames) => query(goal, { max_frames }));
    const alone: Exchange[] = [];
    for (const sent of batch) {
      const reply = await this.session.request({ type: "query", query: sent }, "query", timeoutMs);
      alone.push({ purpose: "pipelining", query: sent, reply });
    }
    exchanges.push(...alone);
    if (alone.some((exchange) => framesOf(exchange.reply) === undefined)) return { batch, alone };
    const replies = await (this.session.requestMany as NonNullable<WireSession["requestMany"]>)(
      batch.map((sent) => ({ type: "query", query: sent })),
      "pipelined queries",
      timeoutMs,
    );
    const together = replies.map(
      (reply, index): Exchange => ({ purpose: "pipelining", query: batch[index] as ProbeQuery, reply }),
    );
    const answered = together.every((exchange) => framesOf(exchange.reply) !== undefined);
    if (answered && firstMismatch(alone, together) === -1) exchanges.push(...together);
    return { batch, alone, together };
  }
}
