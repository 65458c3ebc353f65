/**
 * The bridge over streamable HTTP on a real socket: the SDK's client talks to it with
 * a token; raw requests show the guards — Host (DNS rebinding), Origin, bearer token,
 * body limit — and the session rules.
 */
import { request } from "node:http";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMcpBridge } from "./bridge.js";
import { type McpHttpServer, serveMcpHttp } from "./http.js";
import { troubledProvider } from "./test-support/providers.js";

const TOKEN = "s3cret-token";
let server: McpHttpServer;

beforeAll(async () => {
  server = await serveMcpHttp(createMcpBridge(troubledProvider()), {
    token: TOKEN,
    allowedOrigins: ["https://app.example"],
    maxBodyBytes: 4096,
    maxSessions: 2,
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
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  const url = new URL(server.url);
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

async function connect(headers: Record<string, string> = { Authorization: `Bearer ${TOKEN}` }): Promise<Client> {
  const client = new Client({ name: "http-test", version: "0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers } }));
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

  it("closes the least recently used session beyond its bound", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await raw()).headers["mcp-session-id"] as string);
    const ping = (id: string) =>
      raw({ body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "ping" }), headers: { "mcp-session-id": id } });
    expect((await ping(ids[0] as string)).status).toBe(404);
    expect((await ping(ids[2] as string)).status).toBe(200);
  });
});
