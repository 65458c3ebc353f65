/**
 * `ocp-provider/http`: a provider over streamable HTTP — POST one envelope, get one
 * envelope back, with the same semantics as stdio.
 *
 * Security defaults: binds 127.0.0.1; a request that arrives over loopback (any loopback
 * bind, however spelled, or a wildcard bind reached through 127.0.0.1 or ::1) must name
 * loopback in its Host header too (a DNS-rebinding page cannot reach us; see
 * loopback.ts); a request from a web page
 * (one with an `Origin` header) must come from the server's own origin or one the
 * `allowedOrigins` option names; a POST must say `Content-Type: application/json`, which
 * a cross-site form or `no-cors` fetch cannot send without the browser asking first; an
 * optional bearer token; a request body limit. Every refusal carries an `error` envelope.
 *
 * Sessions: the `handshake_ack` response carries an `OCP-Session` header. Requests
 * that send it back share that session's handshake state, and a `shutdown` with it
 * ends that session only. Requests without it are stateless: a query needs no
 * earlier handshake, since HTTP has no connection to hang state on.
 */
import { randomUUID, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, Server } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { type Context, Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { describeError, ERROR_CODES, OcpError } from "../../provider/errors.js";
import type { Provider } from "../../provider/provider.js";
import { createSession, type Session } from "../../provider/session.js";
import { errorEnvelope, writeEnvelope } from "../../wire/codec.js";
import type { Envelope } from "../../wire/schemas.js";
import { PROTOCOL_VERSION, SESSION_HEADER } from "../../wire/version.js";

import { hostGuard, listenHost } from "./loopback.js";

export { parseListenAddress } from "./listen.js";
export { hostGuard, isLoopback, listenHost } from "./loopback.js";
export { SESSION_HEADER };

/** Options of {@link createHttpApp} and {@link serveHttp}. */
export interface HttpOptions {
  /** Interface to bind; default 127.0.0.1. */
  host?: string;
  /** Port; default 0 (any free port). */
  port?: number;
  /** When set, every request needs `Authorization: Bearer <token>`. */
  token?: string;
  /** Largest accepted request body in bytes; default 1 MiB. */
  maxBodyBytes?: number;
  /**
   * Extra Host names accepted over loopback, besides loopback's own (`localhost`, a loopback
   * address in any spelling) and the name bound to.
   */
  allowedHosts?: readonly string[];
  /**
   * Web origins (`https://app.example`, `http://localhost:5173`) whose pages may call the
   * provider. A request carrying any other `Origin` than the server's own is refused
   * with 403; requests without one (hosts, curl) are not concerned. Default none.
   */
  allowedOrigins?: readonly string[];
  /** Most sessions kept at once; the least recently used is dropped beyond it. Default 1000. */
  maxSessions?: number;
  /**
   * Most POSTs being answered at once, over every connection; past it a POST is refused at
   * once with 503 and an `OCP_ERR_BUSY` error. Default {@link DEFAULT_MAX_IN_FLIGHT}.
   */
  maxInFlight?: number;
}

/**
 * How many requests an HTTP provider answers at once by default. Node reads a connection's
 * pipelined requests a read at a time, but nothing bounds how many connections wait on
 * slow searches; past this, a request costs a refusal, not a search and a reply in memory.
 */
export const DEFAULT_MAX_IN_FLIGHT = 256;

/** A listening provider. */
export interface HttpServer {
  /** `http://host:port/`, where hosts POST envelopes. */
  readonly url: string;
  /** The bound port. */
  readonly port: number;
  /** Stops accepting, waits for in-flight requests (bounded), closes the plugins. */
  close(): Promise<void>;
}

/** `scheme://host[:port]` of an origin as browsers send it, or undefined when `text` is none. */
function normalOrigin(text: string): string | undefined {
  try {
    const url = new URL(text);
    return url.origin === "null" ? undefined : url.origin;
  } catch {
    return undefined;
  }
}

/** The `allowedOrigins` option as a set of origins; an entry that is not one is a configuration error. */
function originSet(origins: readonly string[] | undefined): Set<string> {
  const set = new Set<string>();
  for (const origin of origins ?? []) {
    const normal = normalOrigin(origin);
    if (normal === undefined || !/^https?:/.test(normal)) {
      throw new OcpError(
        ERROR_CODES.HTTP_CONFIG,
        `allowedOrigins: '${origin}' is not a web origin (scheme://host[:port], e.g. https://app.example)`,
      );
    }
    set.add(normal);
  }
  return set;
}

/** True for `application/json`, with or without parameters (`; charset=utf-8`). */
function isJsonContentType(header: string | undefined): boolean {
  if (header === undefined) return false;
  const semicolon = header.indexOf(";");
  return (semicolon === -1 ? header : header.slice(0, semicolon)).trim().toLowerCase() === "application/json";
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Builds the Hono app: use it in-process with `app.request()`, or listen with {@link serveHttp}. */
export function createHttpApp(provider: Provider, options: HttpOptions = {}): Hono {
  const hostAllowed = hostGuard(options.host ?? "127.0.0.1", options.allowedHosts);
  const allowedOrigins = originSet(options.allowedOrigins);
  const maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024;
  const maxSessions = options.maxSessions ?? 1000;
  const maxInFlight = options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT;
  if (!Number.isSafeInteger(maxInFlight) || maxInFlight < 1) {
    throw new OcpError(ERROR_CODES.HTTP_CONFIG, `maxInFlight must be a whole number ≥ 1, not ${maxInFlight}`);
  }
  let inFlight = 0;
  const sessions = new Map<string, Session>();
  const app = new Hono();

  const reply = (c: Context, envelope: Envelope, status: 200 | 400 | 401 | 403 | 404 | 405 | 413 | 415 | 500 | 503) =>
    c.body(`${writeEnvelope(envelope)}\n`, status, { "content-type": "application/json" });

  app.onError((error, c) => {
    provider.log.error(`http: ${describeError(error)}`);
    return reply(c, errorEnvelope("internal error (details are on the provider's stderr)"), 500);
  });
  app.notFound((c) =>
    reply(c, errorEnvelope(`no such endpoint: ${c.req.method} ${c.req.path}; POST envelopes to /`), 404),
  );

  app.use("*", async (c, next) => {
    const host = c.req.header("host");
    // The connection's own address, where there is one: what was bound, not how it was spelled.
    const localAddress = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming?.socket.localAddress;
    if (!hostAllowed(host, localAddress)) {
      return reply(c, errorEnvelope(`Host '${host ?? ""}' is not allowed: this provider serves loopback only`), 403);
    }
    // A browser names the page behind every cross-origin request (and every POST). The
    // server's own origin is the one its Host header names; anything else must be allowed
    // by name, so a page elsewhere cannot make the provider search on its behalf.
    const origin = c.req.header("origin");
    if (origin !== undefined) {
      const normal = normalOrigin(origin);
      const own = normalOrigin(`http://${c.req.header("host") ?? ""}`);
      if (normal === undefined || (normal !== own && !allowedOrigins.has(normal))) {
        return reply(
          c,
          errorEnvelope(`Origin '${origin}' is not allowed: only pages the provider is told to trust may call it`),
          403,
        );
      }
    }
    if (options.token !== undefined) {
      const header = c.req.header("authorization") ?? "";
      const given = header.startsWith("Bearer ") ? header.slice(7) : "";
      if (!sameSecret(given, options.token)) {
        c.header("WWW-Authenticate", 'Bearer realm="ocp"');
        return reply(c, errorEnvelope("missing or wrong bearer token"), 401);
      }
    }
    return next();
  });

  app.get("/healthz", (c) =>
    c.json({
      status: "ok",
      protocol_version: PROTOCOL_VERSION,
      provider: provider.info.name,
      version: provider.info.version,
    }),
  );

  app.post(
    "/",
    async (c, next) => {
      // Counted while its reply is being made (the search running): what a flood of
      // requests over many connections could otherwise make the provider take on.
      if (inFlight >= maxInFlight) {
        c.header("Retry-After", "1");
        const busy = `${ERROR_CODES.BUSY}: provider is busy: ${inFlight} requests being answered, the most it takes on at once; retry later`;
        return reply(c, errorEnvelope(busy), 503);
      }
      inFlight++;
      try {
        await next();
      } finally {
        inFlight--;
      }
    },
    async (c, next) => {
      // A cross-site form or no-cors fetch can only send text/plain, form or multipart
      // bodies (or none named): requiring JSON makes the browser ask first, and it won't.
      const type = c.req.header("content-type");
      if (!isJsonContentType(type)) {
        const given = type === undefined ? "no Content-Type" : `Content-Type '${type}'`;
        return reply(c, errorEnvelope(`${given}: POST envelopes as application/json`), 415);
      }
      return next();
    },
    bodyLimit({
      maxSize: maxBodyBytes,
      onError: (c) => reply(c, errorEnvelope(`request body too large: over ${maxBodyBytes} bytes`), 413),
    }),
    async (c) => {
      const text = await c.req.text();
      let message: unknown;
      try {
        message = JSON.parse(text);
      } catch (error) {
        return reply(c, errorEnvelope(`malformed JSON: ${describeError(error).replace(/^SyntaxError: /, "")}`), 400);
      }
      const sessionId = c.req.header(SESSION_HEADER);
      let session: Session | undefined;
      if (sessionId !== undefined) {
        session = sessions.get(sessionId);
        if (session === undefined) return reply(c, errorEnvelope(`unknown or ended session '${sessionId}'`), 404);
        sessions.delete(sessionId); // re-inserted below: keeps the map in least-recently-used order
        sessions.set(sessionId, session);
      }
      const type = (message as { type?: unknown } | null)?.type;
      // A handshake opens a session; anything else without one is answered statelessly.
      const active = session ?? createSession(provider, { requireHandshake: type === "handshake" });
      const answer = await active.respond(message, { signal: c.req.raw.signal });
      if (answer.envelope === undefined) {
        if (sessionId !== undefined) sessions.delete(sessionId);
        return c.body(null, 204);
      }
      if (answer.envelope.type === "handshake_ack" && session === undefined) {
        const id = randomUUID();
        sessions.set(id, active);
        if (sessions.size > maxSessions) sessions.delete(sessions.keys().next().value as string);
        c.header(SESSION_HEADER, id);
      }
      return reply(c, answer.envelope, answer.outcome === "ok" ? 200 : answer.outcome === "rejected" ? 400 : 500);
    },
  );
  app.all("/", (c) => reply(c, errorEnvelope(`method ${c.req.method} not allowed: POST one envelope`), 405));
  return app;
}

/** Listens on `host:port` (default 127.0.0.1, any free port) and serves `provider`. */
export async function serveHttp(provider: Provider, options: HttpOptions = {}): Promise<HttpServer> {
  const app = createHttpApp(provider, options);
  const host = options.host ?? "127.0.0.1";
  const server = await new Promise<Server>((resolve, reject) => {
    const listening = serve({ fetch: app.fetch, port: options.port ?? 0, hostname: listenHost(host) }, () =>
      resolve(listening as Server),
    ) as Server;
    listening.once("error", reject);
  });
  void provider.start();
  const { port } = server.address() as AddressInfo;
  const urlHost = host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${urlHost}:${port}/`,
    port,
    close() {
      closing ??= (async () => {
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        // In-flight requests get a moment to finish; then their connections are cut.
        const cut = setTimeout(() => server.closeAllConnections(), 700);
        await stopped;
        clearTimeout(cut);
        await Promise.race([provider.close(), new Promise((resolve) => setTimeout(resolve, 200).unref())]);
      })();
      return closing;
    },
  };
}

/** Serves over HTTP until SIGTERM/SIGINT, then drains in-flight requests and exits 0. */
export async function runHttp(provider: Provider, options: HttpOptions = {}): Promise<HttpServer> {
  const server = await serveHttp(provider, options);
  const stop = () => {
    setTimeout(() => process.exit(0), 1500).unref();
    void server.close().then(() => process.exit(0));
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
  return server;
}
