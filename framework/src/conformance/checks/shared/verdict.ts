/** What a check concludes. */

/**
 * `skip`: the check does not apply to this target, or there was nothing to check.
 * `not-run`: it could not be tried, because something it needs failed first (the
 * provider never answered a handshake); that failure is reported once, on the check
 * that met it. A report with a check not run is not conformant.
 */
export type CheckStatus = "pass" | "fail" | "skip" | "not-run";

/** A check's verdict; the suite adds the check's name. */
export interface CheckVerdict {
  readonly status: CheckStatus;
  /** What was observed: on a failure, the violation by name ("frame 2 'Retry policy': token_cost 12 < o200k_base count 41"). */
  readonly evidence: string;
}
