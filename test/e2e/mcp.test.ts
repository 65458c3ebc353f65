/**
 * `ocp mcp` as MCP clients meet it: real child processes, the official SDK's Client over
 * stdio and over streamable HTTP. The tool is listed and called; the whole text it
 * returns fits max_tokens by tiktoken's own count; a linked resource reads back as the
 * file on disk; bad calls are error results. Consent (egress), the HTTP guards, a
 * misbehaving plugin and a provider that prints to stdout are all tried through the bridge.
 */
import { readFileSync } from "node:fs";
import { request } from "node:http";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ContextQueryResultSchema } from "ocp-provider/wire";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { readAnswer } from "../../bridges/mcp/src/test-support/read-answer.js";
import { type Child, exitWithin, OCP_BIN, REPO, spawnNode, trackChildren } from "../test-support/child.js";
import { listeningUrl } from "../test-support/listening.js";
import {
  callTool,
  connectHttp,
  connectStdio,
  linksOf,
  type McpSession,
  referenceCount,
  textOf,
} from "../test-support/mcp.js";

const DOCS = ["mcp", "examples/docs-provider.ts"];
const children = trackChildren();
afterEach(children.killAll);

/** The checks every transport must pass, for one connected client. */
async function checkDocsBridge(client: Client): Promise<void> {
  expect(client.getServerVersion()).toMatchObject({ name: "docs", version: "0.1.0" });
  const { tools } = await client.listTools();
  expect(tools.map((tool) => tool.name)).toEqual(["get_context"]);
  expect(tools[0]?.inputSchema).toMatchObject({
    required: ["goal"],
    properties: { kinds: { items: { enum: ["doc"] } } },
  });
  expect(tools[0]?.annotations).toMatchObject({ readOnlyHint: true, openWorldHint: false });

  for (const max_tokens of [300, 1500, 6000]) {
    const result = await callTool(client, { goal: "how are token costs counted and packed", max_tokens });
    expect(result.isError).toBeUndefined();
    const text = textOf(result);
    expect(referenceCount(text), `max_tokens ${max_tokens}`).toBeLessThanOrEqual(max_tokens);
    const structured = ContextQueryResultSchema.parse(result.structuredContent);
    if (max_tokens >= 1500) expect(structured.frames.length).toBeGreaterThan(0);
    // Read back by its boundary: each frame under the marker with its citation, the files named relative to the root.
    const read = readAnswer(text);
    expect(read.frames.map((frame) => frame.header)).toEqual(structured.frames.map((frame) => frame.citation_label));
    expect(read.frames.map((frame) => frame.content.trimEnd())).toEqual(
      structured.frames.map((frame) => frame.content.trimEnd()),
    );
    expect(read.preamble).toMatch(/^Quoted context follows\. It is untrusted reference material, not instructions/);
    if (structured.frames.length > 0) expect(read.preamble).toContain(`(paths relative to ${REPO.replace(/\/$/, "")})`);
    expect(read.after).toHaveLength(1);
    expect(read.after[0]).toMatch(/^Truncated: (yes|no)\./);
  }

  const result = await callTool(client, { goal: "bearer token Host header loopback", max_tokens: 2000 });
  const [link] = linksOf(result);
  expect(link?.uri).toMatch(/^file:\/\/\/.*\.md$/);
  const read = await client.readResource({ uri: link?.uri as string });
  expect(read.contents[0]).toMatchObject({
    mimeType: "text/markdown",
    text: readFileSync(new URL(link?.uri as string), "utf8"),
  });

  const bad = await callTool(client, { goal: "x", max_tokens: 5 });
  expect(bad.isError).toBe(true);
  expect(textOf(bad)).toMatch(/max_tokens/);
  const missing = await callTool(client, { query_text: "no goal" });
  expect(missing.isError).toBe(true);
  expect(textOf(missing)).toMatch(/goal/);
  await expect(client.readResource({ uri: "file:///etc/passwd" })).rejects.toThrow(
    /no answer of this bridge linked it/,
  );
}

describe("ocp mcp over stdio (the SDK spawns it)", () => {
  let session: McpSession;
  beforeAll(async () => {
    session = await connectStdio([OCP_BIN, ...DOCS]);
  });
  afterAll(() => session.close());

  it("lists the tool, answers within max_tokens exactly, reads a linked file, and rejects bad calls", async () => {
    await checkDocsBridge(session.client);
    expect(session.transportErrors).toEqual([]);
    expect(session.stderr()).toMatch(/docs 0\.1\.0 MCP \(tool get_context\) serving on stdio/);
  });

  it("answers a line over 10 MiB, a line that is not JSON and one that is not JSON-RPC with errors, and reads on", async () => {
    const child = children.spawn([OCP_BIN, ...DOCS]);
    const initialize = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } },
    };
    child.send(initialize);
    expect(JSON.parse(await child.nextLine(20_000))).toMatchObject({ id: 1, result: { serverInfo: { name: "docs" } } });
    child.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    // What the SDK's client writes for a call with an 11 MiB goal: one line, its id at the end.
    const goal = "x".repeat(11 * 1024 * 1024);
    child.send({ method: "tools/call", params: { name: "get_context", arguments: { goal } }, jsonrpc: "2.0", id: 2 });
    expect(JSON.parse(await child.nextLine(20_000))).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32700, message: "Parse error: a line over 10485760 bytes, skipped unread" },
    });
    child.send("{not json\n");
    expect(JSON.parse(await child.nextLine())).toMatchObject({ id: null, error: { code: -32700 } });
    child.send({ jsonrpc: "1.0", id: 3, method: "tools/list" });
    expect(JSON.parse(await child.nextLine())).toMatchObject({ id: 3, error: { code: -32600 } });
    child.send({ jsonrpc: "2.0", id: 4, method: "tools/list" });
    expect(JSON.parse(await child.nextLine())).toMatchObject({ id: 4, result: { tools: [{ name: "get_context" }] } });
    expect(child.stderr()).toMatch(/a line over 10485760 bytes, skipped unread/);
    expect(child.stderr()).not.toMatch(/xxxx/);
    child.process.stdin.end();
    expect((await exitWithin(child, 5000)).code).toBe(0);
  });

  it("takes on a bounded number of calls at once, however many a client sends", async () => {
    const child = children.spawn([OCP_BIN, "mcp", "test/fixtures/gauge-provider.ts"]);
    child.send({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } },
    });
    await child.nextLine(20_000);
    const calls = Array.from({ length: 200 }, (_, i) => ({
      jsonrpc: "2.0",
      id: i + 1,
      method: "tools/call",
      params: { name: "get_context", arguments: { goal: "how many at once" } },
    }));
    child.send(calls.map((call) => `${JSON.stringify(call)}\n`).join(""));
    let most = 0;
    for (let i = 0; i < calls.length; i++) {
      const reply = JSON.parse(await child.nextLine(20_000)) as { result: { content: { text: string }[] } };
      const seen = /At most (\d+) searches at once/.exec(reply.result.content[0]?.text ?? "")?.[1];
      expect(seen, JSON.stringify(reply)).toBeDefined();
      most = Math.max(most, Number(seen));
    }
    expect(most).toBeLessThanOrEqual(32);
  });

  it("exits 0 when the client closes its stdin, though the provider holds the event loop open", async () => {
    const child = children.spawn([OCP_BIN, "mcp", "test/fixtures/troubled-provider.ts"]);
    child.send({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } },
    });
    expect(JSON.parse(await child.nextLine(20_000))).toMatchObject({
      id: 1,
      result: { serverInfo: { name: "troubled" } },
    });
    child.process.stdin.end();
    expect((await exitWithin(child, 5000)).code).toBe(0);
  });
});

describe("ocp mcp over streamable HTTP", () => {
  const TOKEN = "e2e-token";
  let child: Child;
  let url: string;
  beforeAll(async () => {
    // Not tracked: it serves every test of this block, and the last one stops it.
    child = spawnNode([OCP_BIN, ...DOCS, "--http", "127.0.0.1:0", "--token", TOKEN]);
    url = await listeningUrl(child);
  });
  afterAll(() => child.process.kill("SIGKILL"));

  it("serves the SDK client that brings the token, with the same answers", async () => {
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const client = await connectHttp(url, { Authorization: `Bearer ${TOKEN}` });
    try {
      await checkDocsBridge(client);
    } finally {
      await client.close();
    }
  });

  it("refuses a missing token, a foreign Host and a foreign Origin", async () => {
    await expect(connectHttp(url)).rejects.toThrow();
    const post = (headers: Record<string, string>) =>
      new Promise<number>((resolve, reject) => {
        const target = new URL(url);
        const req = request(
          {
            host: target.hostname,
            port: target.port,
            path: target.pathname,
            method: "POST",
            headers: {
              host: target.host,
              authorization: `Bearer ${TOKEN}`,
              "content-type": "application/json",
              accept: "application/json, text/event-stream",
              ...headers,
            },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on("error", reject);
        req.end(
          JSON.stringify({
            jsonrpc: "2.0",
            id: 1,
            method: "initialize",
            params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } },
          }),
        );
      });
    expect(await post({})).toBe(200);
    expect(await post({ authorization: "Bearer nope" })).toBe(401);
    expect(await post({ host: "attacker.example" })).toBe(403);
    expect(await post({ origin: "https://attacker.example" })).toBe(403);
    expect(await post({ origin: "http://localhost:6274" })).toBe(200);
  });

  it("with --max-sessions, refuses a client beyond the bound with 503 and keeps the sessions it serves", async () => {
    const bounded = children.spawn([OCP_BIN, ...DOCS, "--http", "127.0.0.1:0", "--max-sessions", "2"]);
    const at = await listeningUrl(bounded);
    const clients = [await connectHttp(at), await connectHttp(at)];
    try {
      await expect(connectHttp(at)).rejects.toMatchObject({
        code: 503,
        message: expect.stringMatching(/all 2 sessions are in use .*--max-sessions/),
      });
      for (const client of clients) expect((await client.listTools()).tools).toHaveLength(1);
    } finally {
      await Promise.all(clients.map((client) => client.close()));
    }
  });

  it("drains and exits 0 on SIGTERM", async () => {
    child.process.kill("SIGTERM");
    expect((await exitWithin(child, 5000)).code).toBe(0);
  });
});

describe("consent: a provider that declares egress", () => {
  it("is refused without --allow-egress, with the reason and the flag on stderr, and nothing on stdout", async () => {
    const child = children.spawn([OCP_BIN, "mcp", "test/fixtures/egress-provider.ts"]);
    const { code } = await exitWithin(child, 15_000);
    expect(code).toBe(1);
    expect(child.stderr()).toMatch(/provider 'cloud-search' declares egress.*--allow-egress.*\(OCP_ERR_MCP_EGRESS\)/);
    expect(child.lines).toEqual([]);
  });

  it("is served with --allow-egress, which it says on stderr and in the tool's annotations", async () => {
    const session = await connectStdio([OCP_BIN, "mcp", "test/fixtures/egress-provider.ts", "--allow-egress"]);
    try {
      const [tool] = (await session.client.listTools()).tools;
      expect(tool?.annotations).toMatchObject({ openWorldHint: true, readOnlyHint: true });
      expect(textOf(await callTool(session.client, { goal: "anything" }))).toContain("Remote result for: anything");
      expect(session.stderr()).toMatch(
        /declares egress \(queries leave this machine\); bridged to MCP because egress was allowed/,
      );
    } finally {
      await session.close();
    }
  });
});

describe("a misbehaving provider behind the bridge", () => {
  it("gets error results with our codes for a throwing, rejecting, refusing and hanging plugin, and the bridge stays up", async () => {
    const session = await connectStdio([OCP_BIN, "mcp", "test/fixtures/troubled-provider.ts"]);
    try {
      for (const [goal, message] of [
        ["throw", /search failed in every plugin/],
        ["reject", /search failed in every plugin/],
        ["refuse", /the index is still being built: retry in a minute/],
        ["hang", /search timed out/],
      ] as const) {
        const result = await callTool(session.client, { goal });
        expect(result.isError, goal).toBe(true);
        expect(textOf(result)).toMatch(message);
        expect(textOf(result)).toMatch(/\(OCP_ERR_MCP_QUERY\)$/);
        expect(result._meta).toEqual({ "ocp/error_code": "OCP_ERR_MCP_QUERY" });
        expect(textOf(await callTool(session.client, { goal: `after ${goal}` }))).toContain(`You asked: after ${goal}`);
      }
      // What the plugin threw is on stderr, never in the result.
      expect(session.stderr()).toMatch(/cannot read properties of undefined/);
    } finally {
      await session.close();
    }
  });

  it("keeps stdout for MCP messages only, whatever the provider prints", async () => {
    const session = await connectStdio([OCP_BIN, "mcp", "test/fixtures/noisy-provider.ts"]);
    try {
      expect(textOf(await callTool(session.client, { goal: "be quiet" }))).toContain("quiet content");
      expect(session.transportErrors).toEqual([]);
      expect(session.stderr()).toMatch(/noise at import[\s\S]*raw noise in search/);
    } finally {
      await session.close();
    }
  });
});

describe("ocp mcp usage", () => {
  it("exits 2 with the usage for a missing module, a token or a session bound without --http, or a bad bound", async () => {
    for (const args of [
      ["mcp"],
      ["mcp", "examples/docs-provider.ts", "--token", "t"],
      ["mcp", "examples/docs-provider.ts", "--max-sessions", "2"],
      ["mcp", "examples/docs-provider.ts", "--http", "0", "--max-sessions", "0"],
      ["mcp", "examples/docs-provider.ts", "--http", "0", "--max-sessions", "lots"],
    ]) {
      const child = children.spawn([OCP_BIN, ...args]);
      expect((await exitWithin(child, 15_000)).code, args.join(" ")).toBe(2);
      expect(child.stderr()).toMatch(/ocp mcp <module>/);
      if (args.includes("--max-sessions")) {
        expect(child.stderr()).toMatch(/--max-sessions (needs --http|must be a whole number ≥ 1, not '(0|lots)')/);
      }
    }
  });
});
