/**
 * The host client's local errors: one class per thing that can go wrong with a
 * provider, each with a stable code so callers can branch on it
 * (`error.code === "OCP_ERR_CONSENT_REQUIRED"`). Documented in docs/host.md.
 */
import { CodedError } from "../coded-error.js";
import type { DataFlow } from "../wire/schemas.js";

/** Stable codes of the host client's errors. */
export const HOST_ERROR_CODES = {
  /** The provider acked in another major protocol family (H1, H3). */
  VERSION_MISMATCH: "OCP_ERR_VERSION_MISMATCH",
  /** The provider did not answer the handshake or a query in time. */
  TIMEOUT: "OCP_ERR_PROVIDER_TIMEOUT",
  /** The provider process exited (or the HTTP provider became unreachable). */
  EXITED: "OCP_ERR_PROVIDER_EXITED",
  /** The provider answered with an `error` envelope. */
  PROVIDER_ERROR: "OCP_ERR_PROVIDER_ERROR",
  /** The provider wrote something that is not a valid envelope where a reply was due. */
  PROTOCOL: "OCP_ERR_PROTOCOL_VIOLATION",
  /** An egress provider (every HTTP provider) has no recorded consent: nothing was sent (C1, C2, C4). */
  CONSENT_REQUIRED: "OCP_ERR_CONSENT_REQUIRED",
  /** The consent file cannot be read or written. */
  CONSENT_STORE: "OCP_ERR_CONSENT_STORE",
  /** The result broke the query's budget (Σ token_cost, frame count or kinds): it was dropped (B2). */
  BUDGET_VIOLATION: "OCP_ERR_BUDGET_VIOLATION",
  /** The connection was used after shutdown(). */
  CLOSED: "OCP_ERR_CONNECTION_CLOSED",
  /** The host asked for tokenizers (the tokenizer extension) and the provider counts in none of them. */
  TOKENIZER_REFUSED: "OCP_ERR_TOKENIZER_REFUSED",
} as const;

/** One of {@link HOST_ERROR_CODES}. */
export type HostErrorCode = (typeof HOST_ERROR_CODES)[keyof typeof HOST_ERROR_CODES];

/** Base class of every host client error. */
export class HostError extends CodedError<HostErrorCode> {
  constructor(code: HostErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.name = "HostError";
  }
}

/** The provider's `handshake_ack` names a version outside the host's major family. */
export class VersionMismatchError extends HostError {
  /** The version the host speaks. */
  readonly ours: string;
  /** The version the provider acked with. */
  readonly theirs: string;
  constructor(ours: string, theirs: string) {
    super(
      HOST_ERROR_CODES.VERSION_MISMATCH,
      `protocol version mismatch: the host speaks ${ours}, the provider answered ${theirs} (another major family)`,
    );
    this.name = "VersionMismatchError";
    this.ours = ours;
    this.theirs = theirs;
  }
}

/**
 * The host named the tokenizers it budgets in and the provider's session counts in none
 * of them (or the provider does not know the extension): its costs would not be the
 * host's. The connection is closed.
 */
export class TokenizerRefusedError extends HostError {
  /** The tokenizers the host asked for. */
  readonly requested: readonly string[];
  /** What the provider offers, when it said (undefined: it ignored the request). */
  readonly offered: readonly string[] | undefined;
  constructor(requested: readonly string[], offered: readonly string[] | undefined) {
    super(
      HOST_ERROR_CODES.TOKENIZER_REFUSED,
      offered === undefined
        ? `the provider does not negotiate tokenizers (asked for ${requested.join(", ")}): its costs are in its own default`
        : `the provider counts in none of ${requested.join(", ")} (it offers ${offered.join(", ")}); ` +
            "a family it does not offer may need its package installed where the provider runs",
    );
    this.name = "TokenizerRefusedError";
    this.requested = requested;
    this.offered = offered;
  }
}

/** No reply within the time limit. */
export class ProviderTimeoutError extends HostError {
  /** The limit that passed, in milliseconds. */
  readonly timeoutMs: number;
  constructor(what: string, timeoutMs: number) {
    super(HOST_ERROR_CODES.TIMEOUT, `no reply to the ${what} within ${timeoutMs} ms`);
    this.name = "ProviderTimeoutError";
    this.timeoutMs = timeoutMs;
  }
}

/** The provider went away before replying. */
export class ProviderExitedError extends HostError {
  constructor(message: string) {
    super(HOST_ERROR_CODES.EXITED, message);
    this.name = "ProviderExitedError";
  }
}

/** The provider replied with an `error` envelope; `message` is the provider's text. */
export class ProviderErrorReply extends HostError {
  /** The HTTP status that came with it, for HTTP providers. */
  readonly status: number | undefined;
  constructor(message: string, status?: number) {
    super(HOST_ERROR_CODES.PROVIDER_ERROR, message);
    this.name = "ProviderErrorReply";
    this.status = status;
  }
}

/** The provider wrote something that breaks the wire contract where a reply was due. */
export class ProtocolViolationError extends HostError {
  constructor(message: string) {
    super(HOST_ERROR_CODES.PROTOCOL, message);
    this.name = "ProtocolViolationError";
  }
}

/** Who would receive query payloads, and what they declared: what a person consents to. */
export interface ConsentSubject {
  /** The provider's name from its `handshake_ack`. */
  readonly provider: string;
  /** Where it runs: the command line of a stdio provider, the URL of an HTTP one. */
  readonly target: string;
  /** Its declared data flow, shown at consent time. */
  readonly dataFlow?: DataFlow;
}

/** An egress provider has no recorded consent; the query was not sent. */
export class ConsentRequiredError extends HostError {
  /** What consent would be granted to. */
  readonly subject: ConsentSubject;
  constructor(subject: ConsentSubject, reason: string) {
    super(
      HOST_ERROR_CODES.CONSENT_REQUIRED,
      `refused to query '${subject.provider}' (${subject.target}): ${reason}, and no consent is recorded for it; ` +
        "nothing was sent. Record consent first (ConsentStore.grant)",
    );
    this.name = "ConsentRequiredError";
    this.subject = subject;
  }
}

/** The consent file is unreadable, corrupt, or cannot be written. */
export class ConsentStoreError extends HostError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(HOST_ERROR_CODES.CONSENT_STORE, message, options);
    this.name = "ConsentStoreError";
  }
}

/** A result broke its query's contract and was dropped whole (B2). */
export class BudgetViolationError extends HostError {
  /** Each violation, e.g. "Σ token_cost 2048 > max_tokens 1024". */
  readonly violations: readonly string[];
  /** How many frames were dropped. */
  readonly droppedFrames: number;
  constructor(provider: string, violations: readonly string[], droppedFrames: number) {
    super(
      HOST_ERROR_CODES.BUDGET_VIOLATION,
      `dropped all ${droppedFrames} frames of '${provider}': ${violations.join("; ")}`,
    );
    this.name = "BudgetViolationError";
    this.violations = violations;
    this.droppedFrames = droppedFrames;
  }
}

/** The connection was used after it was shut down. */
export class ConnectionClosedError extends HostError {
  constructor(provider: string) {
    super(HOST_ERROR_CODES.CLOSED, `the connection to '${provider}' is shut down`);
    this.name = "ConnectionClosedError";
  }
}
