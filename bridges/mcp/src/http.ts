/**
 * The bridge over streamable HTTP, at `/mcp`: the SDK's web-standard transport, one
 * per client session, behind the same guards as our OCP HTTP transport.
 *
 * - binds 127.0.0.1 by default; a request that arrives over loopback (any loopback bind,
 *   however spelled, or a wildcard bind reached through loopback) must name loopback in
 *   its Host header (or an allowed host), so a DNS-rebinding page cannot reach it;
 * - a request with an Origin header must come from a loopback origin or an allowed one
 *   (the MCP transport spec asks servers to check Origin);
 * - an optional bearer token, compared in constant time;
 * - a request body limit, and a bound on the POSTs being answered at once (503 past it);
 * - a bound on sessions that never closes an active one: a new client gets 503 and
 *   `Retry-After` while every session has been used within `sessionIdleMs`.
 * Refusals are JSON-RPC error bodies with 4xx statuses (503 for the two bounds).
 */
import { randomUUID, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, Server } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { type Context, Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { hostGuard, isLoopback, listenHost } from "ocp-provider/http";
import type { McpBridge } from "./bridge.js";
import { MCP_ERROR_CODES, McpBridgeError } from "./errors.js";

/** The path MCP clients connect to. */
export const MCP_PATH = "/mcp";

/** Options of {@link serveMcpHttp}. */
export interface McpHttpOptions {
  /** Interface to bind; default 127.0.0.1. */
  host?: string;
  /** Port; default 0 (any free port). */
  port?: number;
  /** When set, every request needs `Authorization: Bearer <token>`. */
  token?: string;
  /** Extra Host names accepted over loopback, besides loopback's own and the name bound to. */
  allowedHosts?: readonly string[];
  /** Origins accepted besides loopback ones, exactly as browsers send them (`https://app.example`). */
  allowedOrigins?: readonly string[];
  /** Largest accepted request body in bytes; default 1 MiB. */
  maxBodyBytes?: number;
  /**
   * Most client sessions open at once; default 100. When all are open, a new client gets
   * 503 with `Retry-After` — unless one has been idle for `sessionIdleMs`: then the least
   * recently used idle one is closed to make room. An active session is never closed.
   */
  maxSessions?: number;
  /** How long a session must have had no request before a new client may take its place; default 5 minutes. */
  sessionIdleMs?: number;
  /** Most POSTs being answered at once, over every session; past it a POST gets 503 at once. Default 256. */
  maxInFlight?: number;
}

/** A listening bridge. */
export interface McpHttpServer {
  /** `http://host:port/mcp`, the URL MCP clients are configured with. */
  readonly url: string;
  /** The bound port. */
  readonly port: number;
  /** Closes every session and stops listening (the provider is not closed). */
  close(): Promise<void>;
}

function originAllowed(origin: string, allowed: ReadonlySet<string>): boolean {
  if (allowed.has(origin)) return true;
  try {
    const url = new URL(origin);
    return (url.protocol === "http:" || url.protocol === "https:") && isLoopback(url.hostname);
  } catch {
    return false; // "null" and other opaque origins
  }
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

interface Session {
  readonly transport: WebStandardStreamableHTTPServerTransport;
  /** When its last request began or ended (ms since the epoch). */
  lastUsed: number;
  /** Its requests being answered now. */
  active: number;
  close(): Promise<void>;
}

/** What a new client finds when every session is taken: room (after closing an idle one), or when to retry. */
function makeRoom(sessions: Map<string, Session>, idleMs: number, now: number): { retryAfterMs: number } | undefined {
  let soonest = idleMs;
  // Least recently used first: the map is kept in that order.
  for (const [id, session] of sessions) {
    if (session.active > 0) continue;
    const idleFor = now - session.lastUsed;
    if (idleFor >= idleMs) {
      sessions.delete(id);
      void session.close();
      return undefined;
    }
    soonest = Math.min(soonest, idleMs - idleFor);
  }
  return { retryAfterMs: soonest };
}

/** Builds the Hono app; `sessions` are the open client sessions, by id. */
export function createMcpHttpApp(
  bridge: McpBridge,
  options: McpHttpOptions = {},
  sessions: Map<string, Session> = new Map(),
): Hono {
  const hostAllowed = hostGuard(options.host ?? "127.0.0.1", options.allowedHosts);
  const origins = new Set(options.allowedOrigins ?? []);
  const maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024;
  const maxSessions = options.maxSessions ?? 100;
  const sessionIdleMs = options.sessionIdleMs ?? 5 * 60_000;
  if (!Number.isSafeInteger(maxSessions) || maxSessions < 1) {
    throw new McpBridgeError(MCP_ERROR_CODES.CONFIG, `maxSessions must be a whole number ≥ 1, not ${maxSessions}`);
  }
  if (!Number.isSafeInteger(sessionIdleMs) || sessionIdleMs < 0) {
    throw new McpBridgeError(MCP_ERROR_CODES.CONFIG, `sessionIdleMs must be a whole number ≥ 0, not ${sessionIdleMs}`);
  }
  // Sessions being initialized: they count against the bound before they are in the map.
  let opening = 0;
  const maxInFlight = options.maxInFlight ?? 256;
  if (!Number.isSafeInteger(maxInFlight) || maxInFlight < 1) {
    throw new McpBridgeError(MCP_ERROR_CODES.CONFIG, `maxInFlight must be a whole number ≥ 1, not ${maxInFlight}`);
  }
  let inFlight = 0;
  const app = new Hono();
  const refuse = (c: Context, status: 400 | 401 | 403 | 404 | 405 | 413 | 500 | 503, message: string, code = -32000) =>
    c.json({ jsonrpc: "2.0", error: { code, message }, id: null }, status);

  app.onError((error, c) => {
    bridge.provider.log.error(`mcp http: ${error instanceof Error ? error.message : String(error)}`);
    return refuse(c, 500, "internal error (details are on the server's stderr)", -32603);
  });
  app.notFound((c) => refuse(c, 404, `no such endpoint: ${c.req.method} ${c.req.path}; MCP is served at ${MCP_PATH}`));

  app.use("*", async (c, next) => {
    const host = c.req.header("host");
    // Judged by the address the connection arrived on: what was bound, not how it was spelled.
    const localAddress = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming?.socket.localAddress;
    if (!hostAllowed(host, localAddress)) {
      return refuse(c, 403, `Host '${host ?? ""}' is not allowed: this server serves loopback only`);
    }
    const origin = c.req.header("origin");
    if (origin !== undefined && !originAllowed(origin, origins)) {
      return refuse(c, 403, `Origin '${origin}' is not allowed`);
    }
    if (options.token !== undefined) {
      const header = c.req.header("authorization") ?? "";
      const given = header.startsWith("Bearer ") ? header.slice(7) : "";
      if (!sameSecret(given, options.token)) {
        c.header("WWW-Authenticate", 'Bearer realm="ocp-mcp"');
        return refuse(c, 401, "missing or wrong bearer token");
      }
    }
    return next();
  });

  // As the OCP transport: however many connections (or pipelined requests on one) wait on
  // slow calls, at most maxInFlight are taken on; the rest cost a refusal, not a search.
  app.post(MCP_PATH, async (c, next) => {
    if (inFlight >= maxInFlight) {
      c.header("Retry-After", "1");
      return refuse(
        c,
        503,
        `server busy: ${inFlight} requests being answered, the most it takes on at once; retry later`,
      );
    }
    inFlight++;
    try {
      await next();
    } finally {
      inFlight--;
    }
  });
  app.post(
    MCP_PATH,
    bodyLimit({ maxSize: maxBodyBytes, onError: (c) => refuse(c, 413, `request body over ${maxBodyBytes} bytes`) }),
  );

  app.all(MCP_PATH, async (c) => {
    const id = c.req.header("mcp-session-id");
    if (id !== undefined) {
      const session = sessions.get(id);
      if (session === undefined) return refuse(c, 404, `unknown or closed session '${id}'`, -32001);
      sessions.delete(id); // re-inserted: the map stays in least-recently-used order
      sessions.set(id, session);
      session.active++;
      session.lastUsed = Date.now();
      try {
        return await session.transport.handleRequest(c.req.raw);
      } finally {
        session.active--;
        session.lastUsed = Date.now();
      }
    }
    if (c.req.method !== "POST") return refuse(c, 400, "no session: POST an initialize request first");
    let body: unknown;
    try {
      body = await c.req.json();
    } catch {
      return refuse(c, 400, "malformed JSON", -32700);
    }
    const initializes = Array.isArray(body) ? body.some(isInitializeRequest) : isInitializeRequest(body);
    if (!initializes) return refuse(c, 400, "no session: POST an initialize request first");

    if (sessions.size + opening >= maxSessions) {
      const full = makeRoom(sessions, sessionIdleMs, Date.now());
      if (full !== undefined) {
        const seconds = Math.max(1, Math.ceil(full.retryAfterMs / 1000));
        c.header("Retry-After", String(seconds));
        return refuse(
          c,
          503,
          `all ${maxSessions} sessions are in use (none idle for ${Math.round(sessionIdleMs / 1000)} s): ` +
            `retry in ${seconds} s, or start the bridge with a higher --max-sessions`,
        );
      }
    }
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      enableJsonResponse: true,
      onsessioninitialized: (sessionId) => {
        opened();
        sessions.set(sessionId, session);
      },
      onsessionclosed: (sessionId) => void sessions.delete(sessionId),
    });
    const server = bridge.createServer();
    const session: Session = {
      transport,
      lastUsed: Date.now(),
      active: 0,
      close: async () => {
        await server.close().catch(() => {});
      },
    };
    opening++;
    let pending = true;
    const opened = () => {
      if (pending) opening--;
      pending = false;
    };
    try {
      await server.connect(transport);
      return await transport.handleRequest(c.req.raw, { parsedBody: body });
    } finally {
      opened();
      session.lastUsed = Date.now();
    }
  });
  return app;
}

/** Listens on `host:port` (default 127.0.0.1, any free port) and serves the bridge at `/mcp`. */
export async function serveMcpHttp(bridge: McpBridge, options: McpHttpOptions = {}): Promise<McpHttpServer> {
  const sessions = new Map<string, Session>();
  const app = createMcpHttpApp(bridge, options, sessions);
  const host = options.host ?? "127.0.0.1";
  const server = await new Promise<Server>((resolve, reject) => {
    const listening = serve({ fetch: app.fetch, port: options.port ?? 0, hostname: listenHost(host) }, () =>
      resolve(listening as Server),
    ) as Server;
    listening.once("error", reject);
  });
  const { port } = server.address() as AddressInfo;
  const urlHost = host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${urlHost}:${port}${MCP_PATH}`,
    port,
    close() {
      closing ??= (async () => {
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        await Promise.all([...sessions.values()].map((session) => session.close()));
        sessions.clear();
        server.closeIdleConnections();
        const cut = setTimeout(() => server.closeAllConnections(), 700);
        await stopped;
        clearTimeout(cut);
      })();
      return closing;
    },
  };
}
