/**
 * The conformance report and what it is run against.
 */
import type { TokenizerName } from "../tokens/counter.js";
import type { ConformanceTarget, HttpTarget, StdioTarget, TargetTransport } from "../transports/targets.js";
import type { ProviderInfo } from "../wire/schemas.js";
import { CHECKS, type RegisteredCheckName } from "./checks/index.js";
import type { CheckStatus } from "./checks/shared/check.js";

/**
 * Every check, in report order: the reference suite's five first, under the same
 * names, then ours. Derived from the registry (`checks/index.ts`).
 */
export const CHECK_NAMES: readonly CheckName[] = CHECKS.map((check) => check.name);

/** One of {@link CHECK_NAMES}. */
export type CheckName = RegisteredCheckName;

export type { CheckStatus, ConformanceTarget, HttpTarget, StdioTarget, TargetTransport };

/** The outcome of one check, with evidence a person can act on. */
export interface CheckResult {
  readonly name: CheckName;
  readonly status: CheckStatus;
  /** What was observed: on a failure, the violation by name ("frame 2 'Retry policy': token_cost 12 < o200k_base count 41"). */
  readonly evidence: string;
}

/** Options of {@link runConformance}. */
export interface ConformanceOptions {
  /** The tokenizer cost-honesty re-counts with; default `o200k_base`. */
  tokenizer?: TokenizerName;
  /**
   * Ask the provider, in the main session's handshake, to count in `tokenizer` (the
   * tokenizer extension, docs/tokens.md), so the checks recount a negotiated session.
   * Default false: the handshake is the protocol's own.
   */
  negotiate?: boolean;
  /**
   * Goals for the probe queries; the one that yields the most frames drives the
   * other checks. Default: a few generic goals. When they bring back fewer than three
   * frames, the suite asks goals of its own (the titles it saw, the provider's name,
   * broad words). Give one the provider can match: with no frames at all, the frame
   * checks have nothing to judge and the verdict is `not-verified`.
   */
  goals?: readonly string[];
  /**
   * Accept a run in which no query returned a single frame as conformant (a provider
   * with no data yet). Default false: such a run is `not-verified`, not conformant.
   */
  allowNoFrames?: boolean;
  /** How long a handshake may take; default 10 000 ms. */
  handshakeTimeoutMs?: number;
  /** How long a query may take; default 30 000 ms. A hanging provider fails within this, never hangs the suite. */
  queryTimeoutMs?: number;
  /** Called with each check result as soon as it is known (for progress output). */
  onCheck?: (check: CheckResult) => void;
}

/** The verdict of a run: see {@link ConformanceReport.verdict}. */
export type Verdict = "conformant" | "not-conformant" | "not-verified";

/** The verdict on one provider. */
export interface ConformanceReport {
  /** The command line or URL that was checked. */
  readonly target: string;
  readonly transport: TargetTransport;
  /** The tokenizer cost-honesty used. */
  readonly tokenizer: TokenizerName;
  /** When the run negotiated: the tokenizer the provider said the main session counts in (absent if it did not answer the request). */
  readonly negotiated?: string;
  /** Who answered the handshake, if anyone did. */
  readonly provider?: ProviderInfo;
  /** Every check, in {@link CHECK_NAMES} order. */
  readonly checks: CheckResult[];
  /** Frames the frame checks judged, over every reply of the main session (0: they had nothing to judge). */
  readonly framesJudged: number;
  /**
   * `not-conformant`: a check failed or was not run. `not-verified`: none did, but no
   * query returned a frame, so the frame checks (budget, costs, frame validity, kinds,
   * max_frames) verified nothing. `conformant`: neither — or no frames with `allowNoFrames`.
   */
  readonly verdict: Verdict;
  /** True iff the verdict is `conformant`: never for a run whose frame checks had no frames, unless allowed. */
  readonly conformant: boolean;
  /** Wall time of the whole run, in milliseconds. */
  readonly durationMs: number;
}
