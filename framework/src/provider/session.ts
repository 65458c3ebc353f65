/**
 * A host session: the handshake state machine in front of a provider.
 *
 * State changes happen synchronously when an envelope arrives, before any
 * awaiting, so a transport can hand over pipelined envelopes one after another
 * and each sees the state its predecessors left.
 */
import { resolveTokenizer, type TokenizerName } from "../tokens/registry.js";
import { errorEnvelope, readEnvelope, trustEnvelope } from "../wire/codec.js";
import { readTokenizerRequest, withExtension } from "../wire/extensions.js";
import type { FramesWriter } from "../wire/frames-json.js";
import type { Capabilities, ContextQuery, ContextQueryResult, Envelope, ProviderInfo } from "../wire/schemas.js";
import { majorFamily, PROTOCOL_VERSION, versionsCompatible } from "../wire/version.js";
import { describeError, ERROR_CODES, InvalidQueryError, OcpError, UserError } from "./errors.js";
import type { Logger } from "./logger.js";
import type { QueryOptions } from "./query-options.js";

/**
 * What a session needs of a provider: its identity for the ack, a way to start it, a
 * logger. A provider from `defineProvider()` is one. How it answers a query is not on
 * this type: the provider hands its {@link ProviderDoor} to {@link registerDoor}, and
 * only sessions look it up.
 */
export interface SessionHost {
  /** The identity written into `handshake_ack`. */
  readonly info: ProviderInfo;
  /** The capabilities written into `handshake_ack`. */
  readonly capabilities: Capabilities;
  /** Where a failed query is said, for whoever runs the provider. */
  readonly log: Logger;
  /** Starts the provider's plugins; a session calls it once the handshake is acknowledged. */
  start(): Promise<void>;
}

/**
 * Answers a query that has already been read: synchronously when it can be. `raw` is
 * the query as the host sent it (fields beyond the protocol's reach plugins from it);
 * `tokenizer` the session's, when it chose one the provider offers.
 */
export type AnswerQuery = (
  query: ContextQuery,
  options?: QueryOptions,
  raw?: unknown,
  tokenizer?: TokenizerName,
) => ContextQueryResult | Promise<ContextQueryResult>;

/** The tokenizers a provider's sessions may count in (the tokenizer extension, docs/tokens.md). */
export interface SessionTokenizers {
  /** Every one a host may choose, in registry order. */
  readonly offered: readonly TokenizerName[];
  /** The provider's own: what a session that chose none counts in. */
  readonly default: TokenizerName;
  /** Loads a chosen tokenizer's vocabulary once the provider is idle (never before the ack is written). */
  prepare(tokenizer: TokenizerName): void;
}

/** How a provider's sessions reach its pipeline: the one door in, and the writer of what comes out. */
export interface ProviderDoor {
  /** Answers a query already read from its envelope. */
  readonly answer: AnswerQuery;
  /** Writes the provider's frames envelopes, with the provider's own memos. */
  readonly writer: FramesWriter;
  /** The tokenizers its sessions may count in. */
  readonly tokenizers: SessionTokenizers;
}

/**
 * The one door into the answer pipeline, per provider. Module-private: a provider's
 * public type carries no internal member, and nothing but a session (and the provider
 * itself) reaches the pipeline.
 */
const doors = new WeakMap<SessionHost, ProviderDoor>();

/** Internal: records how `host` answers, once, when the provider is defined. */
export function registerDoor(host: SessionHost, door: ProviderDoor): void {
  doors.set(host, door);
}

/** Where a session is: waiting for a handshake, ready for queries, or shut down. */
export type SessionState = "awaiting-handshake" | "ready" | "closed";

/**
 * A reply with a hint for transports that have status codes: `rejected` means the
 * host's envelope was at fault, `failed` that the provider could not answer.
 */
export interface SessionReply {
  readonly envelope: Envelope | undefined;
  readonly outcome: "ok" | "rejected" | "failed";
}

/** One host's conversation with a provider. */
export interface Session {
  /** The current state. */
  readonly state: SessionState;
  /**
   * Handles one decoded JSON value from the host. Resolves to the reply envelope,
   * or undefined for `shutdown` (which has none). Never rejects: every problem
   * becomes an `error` envelope.
   */
  handle(message: unknown, options?: QueryOptions): Promise<Envelope | undefined>;
  /** As {@link Session.handle}, with the reply's outcome. */
  respond(message: unknown, options?: QueryOptions): Promise<SessionReply>;
}

/** Options of {@link createSession}. */
export interface SessionOptions {
  /** Stateless transports (one HTTP request, no session id) answer queries without a prior handshake. */
  requireHandshake?: boolean;
}

const rejected = (message: string): SessionReply => ({ envelope: errorEnvelope(message), outcome: "rejected" });

/**
 * A session as the framework's own transports hold it: the session, and its one respond
 * path, which returns the reply without a promise when it is ready at once (a handshake,
 * a refusal, a query whose plugins answered synchronously), so stdio writes such replies
 * without a microtask hop. Its frames envelopes are not marked trusted: the caller
 * knows they are the framework's own. {@link Session.respond} is this path, awaited.
 */
export interface SessionResponder {
  /** The session, as {@link createSession} returns it. */
  readonly session: Session;
  /** Handles one decoded JSON value from the host; never throws. */
  respond(message: unknown, options?: QueryOptions): SessionReply | Promise<SessionReply>;
  /** Writes the frames envelopes of this provider (its replies are the framework's own). */
  readonly writer: FramesWriter;
}

/** Opens a session on `provider` (from `defineProvider()`); throws an {@link OcpError} for anything else. */
export function createSession(provider: SessionHost, options: SessionOptions = {}): Session {
  return openResponder(provider, options).session;
}

/** Internal: {@link createSession}, with the sync-capable respond path the framework's transports use. */
export function openResponder(provider: SessionHost, options: SessionOptions = {}): SessionResponder {
  const door = doors.get(provider);
  if (door === undefined) {
    throw new OcpError(ERROR_CODES.PROVIDER_CONFIG, "createSession: expected a provider from defineProvider()");
  }
  const { answer: answerQuery, writer, tokenizers } = door;
  let state: SessionState = options.requireHandshake === false ? "ready" : "awaiting-handshake";
  // The session's tokenizer when the host chose one other than the provider's own.
  let tokenizer: TokenizerName | undefined;

  function respond(message: unknown, queryOptions?: QueryOptions): SessionReply | Promise<SessionReply> {
    const read = readEnvelope(message, "host");
    if (!read.ok) return rejected(read.message);
    const envelope = read.value;
    switch (envelope.type) {
      case "handshake": {
        if (state === "closed") return rejected("session is shut down");
        const theirs = envelope.protocol_version;
        if (!versionsCompatible(theirs, PROTOCOL_VERSION)) {
          return rejected(
            `protocol version mismatch: host speaks ${theirs} (family ${majorFamily(theirs)}), ` +
              `this provider speaks ${PROTOCOL_VERSION} (family ${majorFamily(PROTOCOL_VERSION)})`,
          );
        }
        state = "ready";
        // Plugin setup starts after the ack is on its way (start() yields first).
        void provider.start();
        const ack: Envelope = {
          type: "handshake_ack",
          protocol_version: PROTOCOL_VERSION,
          provider: provider.info,
          capabilities: provider.capabilities,
        };
        // A handshake (a first one or a later one) sets the session's tokenizer: the one asked for, else the default.
        tokenizer = undefined;
        const requested = readTokenizerRequest(message);
        if (requested !== undefined) {
          const chosen = chooseTokenizer(requested, tokenizers.offered) ?? tokenizers.default;
          withExtension(ack, "tokenizers-offer", { tokenizer: chosen, tokenizers: tokenizers.offered });
          if (chosen !== tokenizers.default) {
            tokenizer = chosen;
            tokenizers.prepare(chosen);
          }
        }
        return { envelope: ack, outcome: "ok" };
      }
      case "query":
        if (state === "awaiting-handshake") return rejected("query before handshake: send a handshake first");
        if (state === "closed") return rejected("session is shut down");
        return answer(envelope.query, queryOptions, (message as { query?: unknown }).query);
      case "shutdown":
        state = "closed";
        return { envelope: undefined, outcome: "ok" };
      default:
        // readEnvelope(…, "host") admits only host envelope types.
        return rejected(`unexpected envelope type '${envelope.type}'`);
    }
  }

  function answer(
    query: ContextQuery,
    queryOptions?: QueryOptions,
    raw?: unknown,
  ): SessionReply | Promise<SessionReply> {
    let result: ContextQueryResult | Promise<ContextQueryResult>;
    try {
      result = answerQuery(query, queryOptions, raw, tokenizer);
    } catch (error) {
      return failed(error);
    }
    return result instanceof Promise ? result.then(answered, failed) : answered(result);
  }

  function answered(result: ContextQueryResult): SessionReply {
    return { envelope: { type: "frames", result }, outcome: "ok" };
  }

  function failed(error: unknown): SessionReply {
    if (error instanceof UserError) {
      const outcome = error instanceof InvalidQueryError ? "rejected" : "failed";
      // The host shows the message; the provider's stderr says it once too, for whoever runs it.
      if (outcome === "failed") provider.log.warn(`query answered with an error: ${error.message}`);
      return { envelope: errorEnvelope(error.message), outcome };
    }
    provider.log.error(`query failed: ${describeError(error)}`);
    return {
      envelope: errorEnvelope("internal error while answering the query (details are on the provider's stderr)"),
      outcome: "failed",
    };
  }

  // Frames in a session's replies were built by the framework, which makes them valid by
  // construction (a property test holds them to the reference schema): marked so, the
  // writer does not check them again. Hosts cannot send frames, so no other reply holds any.
  const trusted = (reply: SessionReply): SessionReply => {
    if (reply.envelope?.type === "frames") trustEnvelope(reply.envelope, writer);
    return reply;
  };
  const respondLater = (message: unknown, queryOptions?: QueryOptions): Promise<SessionReply> => {
    const reply = respond(message, queryOptions);
    return reply instanceof Promise ? reply.then(trusted) : Promise.resolve(trusted(reply));
  };
  const session: Session = {
    get state() {
      return state;
    },
    respond: respondLater,
    handle: (message, queryOptions) => respondLater(message, queryOptions).then((reply) => reply.envelope),
  };
  return { session, respond, writer };
}

/** The first of the host's tokenizers (wire names, or aliases read tolerantly) that the provider offers. */
function chooseTokenizer(requested: readonly string[], offered: readonly TokenizerName[]): TokenizerName | undefined {
  for (const name of requested) {
    const resolved = resolveTokenizer(name);
    if (resolved !== undefined && offered.includes(resolved)) return resolved;
  }
  return undefined;
}
