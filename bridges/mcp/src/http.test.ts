/**
 * The bridge over streamable HTTP on a real socket: the SDK's client talks to it with
 * a token; raw requests show the guards — Host (DNS rebinding), Origin, bearer token,
 * body limit — and the session rules.
 */
import { request } from "node:http";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { definePlugin, defineProvider, silentLogger } from "ocp-provider";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMcpBridge } from "./bridge.js";
import { type McpHttpOptions, type McpHttpServer, serveMcpHttp } from "./http.js";
import { troubledProvider } from "./test-support/providers.js";

const TOKEN = "s3cret-token";
let server: McpHttpServer;

beforeAll(async () => {
  server = await serveMcpHttp(createMcpBridge(troubledProvider()), {
    token: TOKEN,
    allowedOrigins: ["https://app.example"],
    maxBodyBytes: 4096,
  });
});
afterAll(() => server.close());

const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } },
};

/** One raw HTTP request, with exactly the headers given (Host included). */
function raw(
  options: { method?: string; path?: string; headers?: Record<string, string>; body?: string } = {},
  at: string = server.url,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  const url = new URL(at);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        method: options.method ?? "POST",
        path: options.path ?? "/mcp",
        headers: {
          host: `127.0.0.1:${url.port}`,
          authorization: `Bearer ${TOKEN}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...options.headers,
        },
      },
      (res) => {
        let body = "";
        res.setEncoding("utf8").on("data", (chunk: string) => {
          body += chunk;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on("error", reject);
    req.end(options.body ?? JSON.stringify(INITIALIZE));
  });
}

async function connect(
  headers: Record<string, string> = { Authorization: `Bearer ${TOKEN}` },
  at: string = server.url,
): Promise<Client> {
  const client = new Client({ name: "http-test", version: "0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(at), { requestInit: { headers } }));
  return client;
}

describe("the MCP endpoint over HTTP", () => {
  it("serves the SDK client that brings the token", async () => {
    const client = await connect();
    try {
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(["get_context"]);
      const result = (await client.callTool({
        name: "get_context",
        arguments: { goal: "over http" },
      })) as CallToolResult;
      expect((result.content[0] as { text: string }).text).toContain("You asked: over http");
    } finally {
      await client.close();
    }
  });

  it("refuses a client without the token", async () => {
    await expect(connect({})).rejects.toThrow(/401|bearer token/);
    const response = await raw({ headers: { authorization: "Bearer wrong" } });
    expect(response.status).toBe(401);
    expect(response.headers["www-authenticate"]).toBe('Bearer realm="ocp-mcp"');
    expect(JSON.parse(response.body)).toMatchObject({ jsonrpc: "2.0", error: { message: /bearer token/ } });
  });

  it("refuses a Host that is not loopback (DNS rebinding), even with the token", async () => {
    for (const host of ["evil.example", "evil.example:80", "127.0.0.1.evil.example"]) {
      const response = await raw({ headers: { host } });
      expect(response.status, host).toBe(403);
      expect(response.body).toMatch(/Host .* is not allowed/);
    }
    expect((await raw({ headers: { host: "localhost" } })).status).toBe(200);
  });

  it("refuses an Origin that is neither loopback nor allowed", async () => {
    for (const origin of ["https://evil.example", "null", "http://localhost.evil.example"]) {
      const response = await raw({ headers: { origin } });
      expect(response.status, origin).toBe(403);
      expect(response.body).toMatch(/Origin .* is not allowed/);
    }
    for (const origin of ["http://localhost:6274", "http://127.0.0.1:3000", "https://app.example"]) {
      expect((await raw({ headers: { origin } })).status, origin).toBe(200);
    }
  });

  it("keeps to the session rules, the body limit and its one path", async () => {
    const initialized = await raw();
    expect(initialized.status).toBe(200);
    expect(initialized.headers["mcp-session-id"]).toMatch(/^[0-9a-f-]{36}$/);
    const list = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" });
    expect((await raw({ body: list })).status).toBe(400);
    const unknown = await raw({ body: list, headers: { "mcp-session-id": "00000000-0000-0000-0000-000000000000" } });
    expect(unknown.status).toBe(404);
    expect((await raw({ body: "{not json" })).status).toBe(400);
    expect((await raw({ body: JSON.stringify({ ...INITIALIZE, pad: "x".repeat(5000) }) })).status).toBe(413);
    expect((await raw({ method: "GET" })).status).toBe(400);
    expect((await raw({ path: "/" })).status).toBe(404);
  });
});

describe("the session bound", () => {
  const ping = (url: string, id: string) =>
    raw({ body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "ping" }), headers: { "mcp-session-id": id } }, url);
  const open = async (url: string) => {
    const response = await raw({}, url);
    return { status: response.status, id: response.headers["mcp-session-id"] as string | undefined, response };
  };
  const served: McpHttpServer[] = [];
  const serveWith = async (options: McpHttpOptions) => {
    const bound = await serveMcpHttp(createMcpBridge(troubledProvider()), { token: TOKEN, ...options });
    served.push(bound);
    return bound;
  };
  afterAll(() => Promise.all(served.map((bound) => bound.close())));

  it("serves 100 of 200 clients that come at once, refuses the others with 503 and Retry-After, and loses none it serves", async () => {
    const bound = await serveWith({});
    const attempts = await Promise.allSettled(
      Array.from({ length: 200 }, () => connect(undefined, bound.url).then((client) => client)),
    );
    const clients = attempts.flatMap((attempt) => (attempt.status === "fulfilled" ? [attempt.value] : []));
    const refusals = attempts.flatMap((attempt) =>
      attempt.status === "rejected" ? [attempt.reason as Error & { code?: number }] : [],
    );
    try {
      expect(clients).toHaveLength(100);
      expect(refusals).toHaveLength(100);
      for (const refusal of refusals) {
        expect(refusal.code).toBe(503);
        expect(refusal.message).toMatch(/all 100 sessions are in use.*--max-sessions/);
      }
      const listed = await Promise.all(clients.map((client) => client.listTools()));
      expect(listed.every(({ tools }) => tools[0]?.name === "get_context")).toBe(true);
      const refused = await raw({}, bound.url);
      expect(refused.status).toBe(503);
      expect(Number(refused.headers["retry-after"])).toBeGreaterThanOrEqual(1);
      expect(Number(refused.headers["retry-after"])).toBeLessThanOrEqual(300);
      expect(JSON.parse(refused.body)).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32000 } });
      // A client that ends its session (DELETE) makes room.
      const leaving = clients.pop() as Client;
      await (leaving.transport as StreamableHTTPClientTransport).terminateSession();
      await leaving.close();
      const next = await connect(undefined, bound.url);
      clients.push(next);
    } finally {
      await Promise.all(clients.map((client) => client.close().catch(() => {})));
    }
  });

  it("gives a session idle for sessionIdleMs to a new client, the least recently used first", async () => {
    const bound = await serveWith({ maxSessions: 2, sessionIdleMs: 0 });
    const [first, second] = [await open(bound.url), await open(bound.url)];
    expect((await ping(bound.url, first.id as string)).status).toBe(200); // first is now the most recently used
    const third = await open(bound.url);
    expect(third.status).toBe(200);
    expect((await ping(bound.url, second.id as string)).status).toBe(404);
    expect((await ping(bound.url, first.id as string)).status).toBe(200);
    expect((await ping(bound.url, third.id as string)).status).toBe(200);
  });

  it("never closes a session while one of its requests is being answered", async () => {
    let started: () => void = () => {};
    const searching = new Promise<void>((resolve) => {
      started = resolve;
    });
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const provider = defineProvider({
      name: "gated",
      version: "1.0.0",
      dataFlow: { reads: true, writes: false, egress: false },
      logger: silentLogger,
      plugins: [
        definePlugin({
          name: "gate",
          kinds: ["memory"],
          search: async () => {
            started();
            await gate;
            return [{ content: "done\n", relevance: 1, title: "Done" }];
          },
        }),
      ],
    });
    const bound = await serveMcpHttp(createMcpBridge(provider), { token: TOKEN, maxSessions: 1, sessionIdleMs: 0 });
    served.push(bound);
    const busy = await open(bound.url);
    const call = raw(
      {
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 2,
          method: "tools/call",
          params: { name: "get_context", arguments: { goal: "wait" } },
        }),
        headers: { "mcp-session-id": busy.id as string },
      },
      bound.url,
    );
    await searching;
    const refused = await open(bound.url);
    expect(refused.status).toBe(503);
    expect(refused.response.headers["retry-after"]).toBe("1");
    release();
    const answered = await call;
    expect(answered.status).toBe(200);
    expect(JSON.parse(answered.body)).toMatchObject({ id: 2, result: { content: [{ type: "text" }] } });
    // Answered and idle: now it may go.
    expect((await open(bound.url)).status).toBe(200);
    expect((await ping(bound.url, busy.id as string)).status).toBe(404);
  });

  it("refuses a bound that cannot work", async () => {
    const bridge = createMcpBridge(troubledProvider());
    for (const options of [{ maxSessions: 0 }, { maxSessions: 1.5 }, { sessionIdleMs: -1 }]) {
      await expect(serveMcpHttp(bridge, options)).rejects.toThrow(/OCP_ERR_MCP_CONFIG/);
    }
  });
});

describe("the MCP endpoint's Host guard on every loopback bind, however spelled (real sockets, no token)", () => {
  /** An initialize POSTed to `address:port` with exactly the Host (and Origin) given. */
  const initialize = (address: string, port: number, headers: Record<string, string>) =>
    new Promise<number>((resolve, reject) => {
      const req = request(
        {
          host: address,
          port,
          method: "POST",
          path: "/mcp",
          headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
        },
        (res) => {
          res.resume();
          res.on("end", () => resolve(res.statusCode ?? 0));
        },
      );
      req.on("error", reject);
      req.end(JSON.stringify(INITIALIZE));
    });

  it("refuses a rebound Host and serves loopback's own on each spelling, and on a wildcard bind reached over loopback", async () => {
    const wrong: string[] = [];
    for (const [bind, connectTo] of [
      ["127.1", "127.0.0.1"],
      ["0x7f.1", "127.0.0.1"],
      ["LOCALHOST", "127.0.0.1"],
      ["::ffff:127.0.0.1", "127.0.0.1"],
      ["0:0:0:0:0:0:0:1", "::1"],
      ["0.0.0.0", "127.0.0.1"],
      ["::", "::1"],
    ] as const) {
      const served = await serveMcpHttp(createMcpBridge(troubledProvider()), { host: bind });
      try {
        const port = served.port;
        const cases: [string, Record<string, string>, number][] = [
          ["a rebound Host", { host: `attacker.example:${port}` }, 403],
          [
            "a rebound Host and its page's Origin",
            { host: `attacker.example:${port}`, origin: `http://attacker.example:${port}` },
            403,
          ],
          ["Host localhost", { host: `localhost:${port}` }, 200],
          ["Host 127.0.0.1", { host: `127.0.0.1:${port}` }, 200],
        ];
        for (const [what, headers, expected] of cases) {
          const status = await initialize(connectTo, port, headers);
          if (status !== expected) wrong.push(`${bind}, ${what}: ${status}, not ${expected}`);
        }
      } finally {
        await served.close();
      }
    }
    expect(wrong).toEqual([]);
  });
});

describe("the MCP endpoint's bound on calls taken on at once", () => {
  it("answers a POST past maxInFlight with 503 at once, without calling the provider", async () => {
    let calls = 0;
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const provider = defineProvider({
      name: "held",
      version: "0.0.1",
      dataFlow: { reads: true, writes: false, egress: false },
      logger: silentLogger,
      pluginTimeoutMs: 600_000,
      plugins: [
        definePlugin({
          name: "held",
          kinds: ["doc"],
          search: async ({ goal }) => {
            calls++;
            await released;
            return [{ content: `You asked: ${goal}\n`, relevance: 1, title: "Echo" }];
          },
        }),
      ],
    });
    // Room for the four held calls only (the session's own POSTs are answered at once).
    const served = await serveMcpHttp(createMcpBridge(provider), { maxInFlight: 4 });
    const client = new Client({ name: "held-test", version: "0" });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(served.url)));
      const held = Array.from({ length: 4 }, (_, i) =>
        client.callTool({ name: "get_context", arguments: { goal: `held ${i}` } }),
      );
      while (calls < 4) await new Promise((resolve) => setTimeout(resolve, 10));
      // Either the fifth is refused while the four are held, or the provider was called for it too.
      const fifth = await Promise.race([
        client.callTool({ name: "get_context", arguments: { goal: "fifth" } }).then(
          () => "answered",
          (error: Error & { code?: number }) => `${error.code}: ${error.message}`,
        ),
        (async () => {
          while (calls < 5) await new Promise((resolve) => setTimeout(resolve, 10));
          return "taken on";
        })(),
      ]);
      expect(fifth).toMatch(/^503: .*server busy: 4 requests being answered/);
      expect(calls).toBe(4);
      release();
      for (const result of (await Promise.all(held)) as CallToolResult[]) expect(result.isError).toBeFalsy();
    } finally {
      release();
      await client.close();
      await served.close();
    }
  });
});
