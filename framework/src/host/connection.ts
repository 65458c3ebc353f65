/**
 * A connection to one provider, the same over stdio and HTTP: the handshake with
 * its version-family check, then queries that are consent-gated before anything
 * is sent, bounded in time, and budget-audited before a frame is handed back.
 *
 * The transports supply a {@link Channel}: "send this line, give me the reply".
 */

import { resolveTokenizer } from "../tokens/registry.js";
import type { ProviderTarget } from "../transports/targets.js";
import { readEnvelope, writeEnvelope } from "../wire/codec.js";
import { readTokenizerOffer, withExtension } from "../wire/extensions.js";
import type {
  Capabilities,
  ContextQuery,
  ContextQueryResult,
  Envelope,
  HandshakeAck,
  ProviderInfo,
} from "../wire/schemas.js";
import { PROTOCOL_VERSION, versionsCompatible } from "../wire/version.js";
import { auditResult, totalTokenCost } from "./audit.js";
import { type ConsentGate, NO_CONSENT } from "./consent.js";
import {
  BudgetViolationError,
  ConnectionClosedError,
  ConsentRequiredError,
  type ConsentSubject,
  ProtocolViolationError,
  ProviderErrorReply,
  TokenizerRefusedError,
  VersionMismatchError,
} from "./errors.js";

/** Options shared by {@link connectStdio} and {@link connectHttp}. */
export interface ConnectOptions {
  /** How long the handshake may take; default 10 000 ms. */
  handshakeTimeoutMs?: number;
  /** How long a query may take unless the call says otherwise; default 30 000 ms. */
  queryTimeoutMs?: number;
  /** Who decides whether an egress provider may be queried; default: nobody may (every egress query refused). */
  consent?: ConsentGate;
  /** The version the host announces; default `ocp/1.0-draft`. */
  protocolVersion?: string;
  /** Where loud reports go (dropped results, stdout noise); default stderr. */
  report?: (message: string) => void;
  /**
   * The tokenizers the host budgets in, most preferred first (the tokenizer extension,
   * docs/tokens.md): the handshake asks for them, and the connection fails with a
   * {@link TokenizerRefusedError} unless the provider counts in one of them. `[]` only
   * asks what it offers. Default: the handshake does not ask, and costs are in the provider's default.
   */
  tokenizers?: readonly string[];
}

/** A query as a caller writes it: lists may be left out. */
export type QueryInput = Omit<ContextQuery, "kinds" | "anchors"> & Partial<Pick<ContextQuery, "kinds" | "anchors">>;

/** Options of one {@link ProviderConnection.query} call. */
export interface QueryCallOptions {
  /** Overrides the connection's query timeout. */
  timeoutMs?: number;
}

/** A connected provider. */
export interface ProviderConnection {
  /** How it is reached. */
  readonly transport: ProviderTarget["transport"];
  /** Its command line (stdio) or URL (HTTP). */
  readonly target: string;
  /** The `handshake_ack` it sent. */
  readonly ack: HandshakeAck;
  /** Its identity and declared data flow. */
  readonly info: ProviderInfo;
  /** What it serves. */
  readonly capabilities: Capabilities;
  /** The tokenizer this session's costs are counted in, when the handshake asked (the tokenizer extension). */
  readonly tokenizer: string | undefined;
  /** The tokenizers the provider offers, when the handshake asked. */
  readonly tokenizers: readonly string[] | undefined;
  /** True when queries need consent: it declares egress, or it is an HTTP provider (C4). */
  readonly egress: boolean;
  /** What consent for this provider is granted to. */
  readonly consentSubject: ConsentSubject;
  /** True once shutdown() has been called or the provider went away. */
  readonly closed: boolean;
  /**
   * Sends one query and returns its audited result. Throws a {@link ConsentRequiredError}
   * (nothing sent) for an egress provider without consent, a `ProviderTimeoutError`,
   * `ProviderExitedError`, {@link ProviderErrorReply}, {@link ProtocolViolationError}, or a
   * {@link BudgetViolationError} when the result broke the budget and was dropped (B2).
   */
  query(query: QueryInput, options?: QueryCallOptions): Promise<ContextQueryResult>;
  /** What the provider wrote to stderr so far (stdio; empty for HTTP). */
  stderr(): string;
  /** Ends the session: stdio gets `shutdown`, EOF, a 2 s grace, then its process group is killed. */
  shutdown(): Promise<void>;
}

/** A transport's half: send one line, get the reply envelope (or a typed error). */
export interface Channel {
  /** Sends `line` (one serialised envelope) and resolves with the reply, read tolerantly. */
  request(line: string, what: string, timeoutMs: number): Promise<{ value: unknown; status?: number }>;
  /** Ends the session for good. */
  close(): Promise<void>;
  /** stderr so far. */
  stderr(): string;
  /** True once the other side is gone. */
  readonly gone: boolean;
}

/** Writes a loud report to stderr, where it cannot be mistaken for program output. */
export const reportToStderr = (message: string) => {
  process.stderr.write(`ocp host: ${message}\n`);
};

function readReply(value: unknown, what: string): Envelope {
  const read = readEnvelope(value, "provider");
  if (!read.ok) throw new ProtocolViolationError(`invalid reply to the ${what}: ${read.message}`);
  return read.value;
}

/** Performs the handshake on `channel` and returns the connection; closes the channel if it fails. */
export async function openConnection(
  channel: Channel,
  meta: { transport: ProviderTarget["transport"]; target: string },
  options: ConnectOptions,
): Promise<ProviderConnection> {
  const version = options.protocolVersion ?? PROTOCOL_VERSION;
  const queryTimeoutMs = options.queryTimeoutMs ?? 30_000;
  const consent = options.consent ?? NO_CONSENT;
  const report = options.report ?? reportToStderr;
  let ack: HandshakeAck;
  let offer: { tokenizer: string; tokenizers: readonly string[] } | undefined;
  // Aliases (`gemma`) are sent as the wire names the provider will answer with.
  const requested = options.tokenizers?.map((name) => resolveTokenizer(name) ?? name);
  try {
    const handshake = { type: "handshake" as const, protocol_version: version };
    if (requested !== undefined) withExtension(handshake, "tokenizers-request", { tokenizers: [...requested] });
    const { value, status } = await channel.request(
      writeEnvelope(handshake),
      "handshake",
      options.handshakeTimeoutMs ?? 10_000,
    );
    const reply = readReply(value, "handshake");
    if (reply.type === "error") throw new ProviderErrorReply(`handshake refused: ${reply.message}`, status);
    if (reply.type !== "handshake_ack") {
      throw new ProtocolViolationError(`answered the handshake with '${reply.type}', not 'handshake_ack'`);
    }
    if (!versionsCompatible(reply.protocol_version, version)) {
      throw new VersionMismatchError(version, reply.protocol_version);
    }
    ack = reply;
    if (requested !== undefined) {
      offer = readTokenizerOffer(value);
      if (requested.length > 0 && (offer === undefined || !requested.includes(offer.tokenizer))) {
        throw new TokenizerRefusedError(requested, offer?.tokenizers);
      }
    }
  } catch (error) {
    await channel.close();
    throw error;
  }

  const info = ack.provider;
  // C4: over HTTP the provider is remote whatever it claims, so it is egress.
  const egress = meta.transport === "http" || info.data_flow.egress;
  const consentSubject: ConsentSubject = { provider: info.name, target: meta.target, dataFlow: info.data_flow };
  let closed = false;

  async function query(input: QueryInput, callOptions: QueryCallOptions = {}): Promise<ContextQueryResult> {
    // Our own shutdown is ConnectionClosedError; a provider that went away says why through the channel.
    if (closed) throw new ConnectionClosedError(info.name);
    if (egress && !consent.isGranted(consentSubject)) {
      const reason =
        meta.transport === "http"
          ? "it is reached over HTTP, and every HTTP provider counts as egress (C4)"
          : "it declares data_flow.egress: true";
      throw new ConsentRequiredError(consentSubject, reason);
    }
    // The writer validates (a bad query is a local error, never sent) and fills defaults.
    const line = writeEnvelope({ type: "query", query: { kinds: [], anchors: [], ...input } });
    const sent = (JSON.parse(line) as { query: ContextQuery }).query;
    const { value, status } = await channel.request(line, "query", callOptions.timeoutMs ?? queryTimeoutMs);
    const reply = readReply(value, "query");
    if (reply.type === "error") throw new ProviderErrorReply(reply.message, status);
    if (reply.type !== "frames") throw new ProtocolViolationError(`answered a query with '${reply.type}'`);
    const violations = auditResult(sent, reply.result);
    if (violations.length > 0) {
      const error = new BudgetViolationError(info.name, violations, reply.result.frames.length);
      report(
        `BUDGET VIOLATION by '${info.name}' (${meta.target}): ${violations.join("; ")}. ` +
          `All ${reply.result.frames.length} frames (${totalTokenCost(reply.result)} tokens claimed) were dropped (B2).`,
      );
      throw error;
    }
    return reply.result;
  }

  return {
    transport: meta.transport,
    target: meta.target,
    ack,
    info,
    capabilities: ack.capabilities,
    tokenizer: offer?.tokenizer,
    tokenizers: offer?.tokenizers,
    egress,
    consentSubject,
    get closed() {
      return closed || channel.gone;
    },
    query,
    stderr: () => channel.stderr(),
    async shutdown() {
      closed = true;
      await channel.close();
    },
  };
}
