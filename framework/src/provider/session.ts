/**
 * A host session: the handshake state machine in front of a provider.
 *
 * State changes happen synchronously when an envelope arrives, before any
 * awaiting, so a transport can hand over pipelined envelopes one after another
 * and each sees the state its predecessors left.
 */
import { errorEnvelope, readEnvelope, trustEnvelope } from "../wire/codec.js";
import type { ContextQuery, ContextQueryResult, Envelope } from "../wire/schemas.js";
import { majorFamily, PROTOCOL_VERSION, versionsCompatible } from "../wire/version.js";
import { describeError, InvalidQueryError, UserError } from "./errors.js";
import { ANSWER, type Provider, type QueryOptions } from "./provider.js";

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
 * Internal: {@link Session.respond} without the promise when the reply is ready at
 * once (a handshake, a refusal, a query whose plugins answered synchronously). The
 * stdio transport uses it to write such replies without a microtask hop. Its frames
 * envelopes are not marked trusted: the caller knows they are the framework's own.
 */
export const RESPOND_NOW: unique symbol = Symbol("ocp-provider.respond-now");

/** A session as the framework's own transports see it. */
export interface InternalSession extends Session {
  readonly [RESPOND_NOW]: (message: unknown, options?: QueryOptions) => SessionReply | Promise<SessionReply>;
}

/**
 * Frames in a session's replies were built by the framework, which makes them valid by
 * construction (a property test holds them to the reference schema): marked so, the
 * writer does not check them again. Hosts cannot send frames, so no other reply holds any.
 */
function trusted(reply: SessionReply): SessionReply {
  if (reply.envelope?.type === "frames") trustEnvelope(reply.envelope);
  return reply;
}

/** Opens a session on `provider`. */
export function createSession(provider: Provider, options: SessionOptions = {}): Session {
  return createInternalSession(provider, options);
}

/** Internal: {@link createSession} with the framework's own transports' extra entry. */
export function createInternalSession(provider: Provider, options: SessionOptions = {}): InternalSession {
  let state: SessionState = options.requireHandshake === false ? "ready" : "awaiting-handshake";

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
      result = provider[ANSWER](query, queryOptions, raw);
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

  const respondLater = (message: unknown, queryOptions?: QueryOptions): Promise<SessionReply> => {
    const reply = respond(message, queryOptions);
    return reply instanceof Promise ? reply.then(trusted) : Promise.resolve(trusted(reply));
  };
  return {
    get state() {
      return state;
    },
    [RESPOND_NOW]: respond,
    respond: respondLater,
    handle: (message, queryOptions) => respondLater(message, queryOptions).then((reply) => reply.envelope),
  };
}
