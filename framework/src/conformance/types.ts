/**
 * The conformance report and what it is run against.
 */
import type { TokenizerName } from "../tokens/counter.js";
import type { ProviderInfo } from "../wire/schemas.js";

/**
 * Every check, in report order: the reference suite's five first, under the same
 * names, then ours; the last two apply to HTTP targets only.
 */
export const CHECK_NAMES = [
  "handshake",
  "frame-validity",
  "budget-honesty",
  "shutdown-clean",
  "malformed-input-tolerance",
  "schema-validity",
  "cost-honesty",
  "kinds-filter",
  "max-frames",
  "version-mismatch",
  "pipelining",
  "unknown-fields",
  "eof-exit",
  "garbage",
  "http-bad-json",
  "http-oversized-body",
] as const;

/** One of {@link CHECK_NAMES}. */
export type CheckName = (typeof CHECK_NAMES)[number];

/**
 * `skip`: the check does not apply to this target, or there was nothing to check.
 * `not-run`: it could not be tried, because something it needs failed first (the
 * provider never answered a handshake); that failure is reported once, on the check
 * that met it. A report with a check not run is not conformant.
 */
export type CheckStatus = "pass" | "fail" | "skip" | "not-run";

/** The outcome of one check, with evidence a person can act on. */
export interface CheckResult {
  readonly name: CheckName;
  readonly status: CheckStatus;
  /** What was observed: on a failure, the violation by name ("frame 2 'Retry policy': token_cost 12 < o200k_base count 41"). */
  readonly evidence: string;
}

/** A provider the suite spawns and talks to over stdin/stdout. */
export interface StdioTarget {
  readonly transport: "stdio";
  readonly command: string;
  readonly args?: readonly string[];
  readonly cwd?: string;
  /** Extra environment variables. */
  readonly env?: NodeJS.ProcessEnv;
}

/** A provider already listening for streamable HTTP. */
export interface HttpTarget {
  readonly transport: "http";
  /** Where envelopes are POSTed, e.g. `http://127.0.0.1:8080/`. */
  readonly url: string;
  /** Sent as `Authorization: Bearer <token>`. */
  readonly token?: string;
}

/** What {@link runConformance} is run against. */
export type ConformanceTarget = StdioTarget | HttpTarget;

/** Options of {@link runConformance}. */
export interface ConformanceOptions {
  /** The tokenizer cost-honesty re-counts with; default `o200k_base`. */
  tokenizer?: TokenizerName;
  /**
   * Goals for the probe queries; the one that yields the most frames drives the
   * other checks. Default: a few generic goals. Give one the provider can match,
   * or frame checks are skipped for want of frames.
   */
  goals?: readonly string[];
  /** How long a handshake may take; default 10 000 ms. */
  handshakeTimeoutMs?: number;
  /** How long a query may take; default 30 000 ms. A hanging provider fails within this, never hangs the suite. */
  queryTimeoutMs?: number;
  /** Called with each check result as soon as it is known (for progress output). */
  onCheck?: (check: CheckResult) => void;
}

/** The verdict on one provider. */
export interface ConformanceReport {
  /** The command line or URL that was checked. */
  readonly target: string;
  readonly transport: "stdio" | "http";
  /** The tokenizer cost-honesty used. */
  readonly tokenizer: TokenizerName;
  /** Who answered the handshake, if anyone did. */
  readonly provider?: ProviderInfo;
  /** Every check, in {@link CHECK_NAMES} order. */
  readonly checks: CheckResult[];
  /** True iff every check passed or was skipped: none failed, none was left not run. */
  readonly conformant: boolean;
  /** Wall time of the whole run, in milliseconds. */
  readonly durationMs: number;
}
