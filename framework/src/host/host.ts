/**
 * Host: one query fanned out to several providers, each consent-gated, bounded in
 * time and budget-audited on its own, so one slow, lying or crashing provider
 * costs only its own frames. The merged answer keeps the best frames across
 * providers under the query's budget, and a report says what each provider did.
 */
import { writeEnvelope } from "../wire/codec.js";
import { FRAME_KINDS, type FrameKind } from "../wire/schemas.js";
import type { ProviderConnection, QueryInput } from "./connection.js";
import { HOST_ERROR_CODES, HostError } from "./errors.js";
import type { AttributedFrame } from "./render.js";

/** What happened with one provider for one query. */
export type ProviderStatus =
  /** Answered; its frames passed the audit. */
  | "answered"
  /** Serves none of the requested kinds: not asked. */
  | "not-matching"
  /** Egress without recorded consent: not asked, nothing sent. */
  | "consent-required"
  /** No answer in time. */
  | "timeout"
  /** Answered beyond the budget: every frame dropped (B2). */
  | "budget-violation"
  /** Answered with an `error` envelope. */
  | "error"
  /** Wrote something that is not a valid reply. */
  | "protocol-violation"
  /** Gone: exited, unreachable or shut down. */
  | "unavailable";

/** The per-provider line of a {@link HostQueryResult}. */
export interface ProviderReport {
  /** The name the provider was added under. */
  readonly provider: string;
  readonly status: ProviderStatus;
  /** Frames it returned that passed the audit. */
  readonly frames: number;
  /** Their Σ token_cost. */
  readonly tokens: number;
  /** How long it took, in milliseconds (0 when it was not asked). */
  readonly elapsedMs: number;
  /** What went wrong, in words, when it was not `answered`. */
  readonly message?: string;
}

/** The answer of {@link Host.query}. */
export interface HostQueryResult {
  /** The best frames of all providers, by score, within max_tokens and max_frames. */
  readonly frames: AttributedFrame[];
  /** Σ token_cost of `frames`. */
  readonly totalTokens: number;
  /** Every audited frame each provider returned, before the merge. */
  readonly byProvider: ReadonlyMap<string, AttributedFrame[]>;
  /** One line per provider, in the order they were added. */
  readonly reports: ProviderReport[];
}

/** Options of {@link Host.query}. */
export interface HostQueryOptions {
  /** Per-provider time limit, overriding each connection's own. */
  timeoutMs?: number;
}

const STATUS_BY_CODE: Partial<Record<string, ProviderStatus>> = {
  [HOST_ERROR_CODES.CONSENT_REQUIRED]: "consent-required",
  [HOST_ERROR_CODES.CONSENT_STORE]: "consent-required",
  [HOST_ERROR_CODES.TIMEOUT]: "timeout",
  [HOST_ERROR_CODES.BUDGET_VIOLATION]: "budget-violation",
  [HOST_ERROR_CODES.PROVIDER_ERROR]: "error",
  [HOST_ERROR_CODES.PROTOCOL]: "protocol-violation",
  [HOST_ERROR_CODES.EXITED]: "unavailable",
  [HOST_ERROR_CODES.CLOSED]: "unavailable",
};

/** Several providers behind one query. */
export class Host {
  readonly #providers = new Map<string, ProviderConnection>();

  /** Registers a connected provider under `name` (default: its announced name); names are unique. */
  add(connection: ProviderConnection, options: { name?: string } = {}): void {
    const name = options.name ?? connection.info.name;
    if (this.#providers.has(name)) throw new RangeError(`a provider named '${name}' is already registered`);
    this.#providers.set(name, connection);
  }

  /** The registered providers by name. */
  get providers(): ReadonlyMap<string, ProviderConnection> {
    return this.#providers;
  }

  /** Sends `query` to every provider serving a requested kind (all of them when `kinds` is empty), at once. */
  async query(query: QueryInput, options: HostQueryOptions = {}): Promise<HostQueryResult> {
    // A malformed query is the caller's mistake, the same for every provider: one error, nothing sent.
    writeEnvelope({ type: "query", query: { kinds: [], anchors: [], ...query } });
    const requested: FrameKind[] = [...(query.kinds ?? [])];
    const entries = [...this.#providers];
    const outcomes = await Promise.all(
      entries.map(([name, connection]) => this.#ask(name, connection, query, requested, options)),
    );
    const byProvider = new Map(outcomes.map((outcome) => [outcome.report.provider, outcome.frames]));
    const frames = merge(
      outcomes.flatMap((outcome) => outcome.frames),
      query,
    );
    return {
      frames,
      totalTokens: frames.reduce((sum, item) => sum + item.frame.token_cost, 0),
      byProvider,
      reports: outcomes.map((outcome) => outcome.report),
    };
  }

  async #ask(
    name: string,
    connection: ProviderConnection,
    query: QueryInput,
    requested: FrameKind[],
    options: HostQueryOptions,
  ): Promise<{ report: ProviderReport; frames: AttributedFrame[] }> {
    const served = connection.capabilities.query.kinds.filter((kind): kind is FrameKind =>
      (FRAME_KINDS as readonly string[]).includes(kind),
    );
    // An empty advertisement is taken as "any kind": the provider did not say.
    const kinds =
      requested.length === 0 || served.length === 0 ? requested : requested.filter((k) => served.includes(k));
    if (requested.length > 0 && kinds.length === 0) {
      const report = { provider: name, status: "not-matching", frames: 0, tokens: 0, elapsedMs: 0 } as const;
      return { report: { ...report, message: `serves ${served.join(", ")}` }, frames: [] };
    }
    const started = performance.now();
    try {
      const result = await connection.query({ ...query, kinds }, { timeoutMs: options.timeoutMs });
      const frames = result.frames.map((frame) => ({ provider: name, frame }));
      const tokens = frames.reduce((sum, item) => sum + item.frame.token_cost, 0);
      const elapsedMs = Math.round(performance.now() - started);
      return { report: { provider: name, status: "answered", frames: frames.length, tokens, elapsedMs }, frames };
    } catch (error) {
      const status = (error instanceof HostError && STATUS_BY_CODE[error.code]) || "error";
      // Refused by the consent gate before anything was sent: the provider was not asked, so 0
      // (as documented), not however long the gate took on a busy machine.
      const elapsedMs = status === "consent-required" ? 0 : Math.round(performance.now() - started);
      const message = error instanceof Error ? error.message : String(error);
      return { report: { provider: name, status, frames: 0, tokens: 0, elapsedMs, message }, frames: [] };
    }
  }

  /** Shuts every provider down (each bounded by its own grace) and forgets them. */
  async close(): Promise<void> {
    const connections = [...this.#providers.values()];
    this.#providers.clear();
    await Promise.all(connections.map((connection) => connection.shutdown().catch(() => {})));
  }
}

/**
 * The best frames across providers: by score (ties keep provider order), each taken
 * if it still fits the budget and the frame limit, duplicates (same provider and id) once.
 */
function merge(frames: AttributedFrame[], query: QueryInput): AttributedFrame[] {
  const order = frames.map((item, index) => ({ item, index }));
  order.sort((a, b) => b.item.frame.score - a.item.frame.score || a.index - b.index);
  const seen = new Set<string>();
  const kept: AttributedFrame[] = [];
  let budget = query.max_tokens;
  for (const { item } of order) {
    if (kept.length >= query.max_frames) break;
    const key = JSON.stringify([item.provider, item.frame.id]);
    if (seen.has(key) || item.frame.token_cost > budget) continue;
    seen.add(key);
    kept.push(item);
    budget -= item.frame.token_cost;
  }
  return kept;
}
