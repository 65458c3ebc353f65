import { request as httpRequest } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { assertReferenceValid } from "../../../../test/test-support/reference-schema.js";
import { ERROR_CODES } from "../../provider/errors.js";
import { silentLogger } from "../../provider/logger.js";
import { definePlugin } from "../../provider/plugin.js";
import { defineProvider } from "../../provider/provider.js";
import { createHttpApp, type HttpOptions, type HttpServer, SESSION_HEADER, serveHttp } from "./server.js";

const provider = () =>
  defineProvider({
    name: "http-test",
    version: "1.0.0",
    dataFlow: { reads: true, writes: false, egress: false },
    logger: silentLogger,
    plugins: [
      definePlugin({
        name: "echo",
        kinds: ["doc"],
        search: (query) => [{ id: "1", content: `echo: ${query.goal}`, relevance: 0.5, title: "Echo" }],
      }),
    ],
  });

const handshake = { type: "handshake", protocol_version: "ocp/1.0-draft" };
const query = { type: "query", query: { goal: "hello", kinds: [], anchors: [], max_frames: 3, max_tokens: 100 } };

let server: HttpServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(options: HttpOptions = {}): Promise<HttpServer> {
  server = await serveHttp(provider(), options);
  return server;
}

/** A raw HTTP request (node:http, so the Host header can be anything). */
function raw(
  url: string,
  init: { method?: string; body?: string | Buffer; headers?: Record<string, string> } = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: init.method ?? "POST", headers: init.headers }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        body += chunk;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on("error", reject);
    req.end(init.body);
  });
}

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  raw(url, {
    body: typeof body === "string" ? body : JSON.stringify(body),
    headers: { "content-type": "application/json", ...headers },
  });

/** Parses a response body as an envelope and checks it against the reference schema. */
function envelope(body: string) {
  const parsed = JSON.parse(body);
  assertReferenceValid(parsed);
  return parsed;
}

describe("HTTP transport", () => {
  it("answers handshake and query, one envelope per POST, binding 127.0.0.1 by default", async () => {
    const { url } = await start();
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const ack = await post(url, handshake);
    expect(ack.status).toBe(200);
    expect(envelope(ack.body).type).toBe("handshake_ack");
    const frames = await post(url, query);
    expect(frames.status).toBe(200);
    expect(envelope(frames.body)).toMatchObject({ type: "frames", result: { frames: [{ content: "echo: hello" }] } });
  });

  it("keeps a session for hosts that send its id back, and a shutdown ends only that session", async () => {
    const { url } = await start();
    const ack = await post(url, handshake);
    const id = ack.headers[SESSION_HEADER.toLowerCase()] as string;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect((await post(url, query, { [SESSION_HEADER]: id })).status).toBe(200);
    const shutdown = await post(url, { type: "shutdown" }, { [SESSION_HEADER]: id });
    expect(shutdown.status).toBe(204);
    const after = await post(url, query, { [SESSION_HEADER]: id });
    expect(after.status).toBe(404);
    expect(envelope(after.body).message).toMatch(/unknown or ended session/);
    // The server itself is still up for everyone else.
    expect((await post(url, query)).status).toBe(200);
  });

  it("answers bad JSON with 400, bad envelopes with 400, all with an error envelope", async () => {
    const { url } = await start();
    const cases: [string | object, RegExp][] = [
      ["{oops", /malformed JSON/],
      ['{"type":"frames","result":{"frames":[],"truncated":false}}', /sent by a provider/],
      ['{"type":"nope"}', /unknown envelope type/],
      [{ type: "query", query: { goal: "x", max_frames: 1 } }, /max_tokens/],
      [{ type: "handshake", protocol_version: "ocp/2.0" }, /host speaks ocp\/2\.0/],
    ];
    for (const [body, message] of cases) {
      const response = await post(url, body);
      expect(response.status, String(body)).toBe(400);
      expect(envelope(response.body).message).toMatch(message);
    }
  });

  it("refuses an oversized body with 413 and an error envelope", async () => {
    const { url } = await start({ maxBodyBytes: 1024 });
    const response = await post(url, JSON.stringify({ ...query, padding: "x".repeat(5000) }));
    expect(response.status).toBe(413);
    expect(envelope(response.body).message).toMatch(/too large/);
  });

  it("requires the bearer token when one is set", async () => {
    const { url } = await start({ token: "s3cret" });
    const missing = await post(url, handshake);
    expect(missing.status).toBe(401);
    expect(missing.headers["www-authenticate"]).toMatch(/Bearer/);
    expect(envelope(missing.body).type).toBe("error");
    expect((await post(url, handshake, { authorization: "Bearer wrong!" })).status).toBe(401);
    expect((await post(url, handshake, { authorization: "Bearer s3cret" })).status).toBe(200);
  });

  it("refuses a foreign Host header on a loopback bind (DNS rebinding)", async () => {
    const { url } = await start();
    const evil = await post(url, handshake, { host: "attacker.example:80" });
    expect(evil.status).toBe(403);
    expect(envelope(evil.body).message).toMatch(/attacker\.example/);
    expect((await post(url, handshake, { host: `localhost:${server?.port}` })).status).toBe(200);
  });

  it("refuses a POST that is not application/json with 415: what a cross-site form or no-cors fetch sends", async () => {
    const { url } = await start();
    const body = JSON.stringify(handshake);
    const refused: (string | undefined)[] = [
      "text/plain",
      "text/plain;charset=UTF-8",
      "application/x-www-form-urlencoded",
      "multipart/form-data; boundary=x",
      "application/jsonp",
      "application/json-seq",
      undefined,
    ];
    for (const type of refused) {
      const response = await raw(url, { body, headers: type === undefined ? {} : { "content-type": type } });
      expect(response.status, String(type)).toBe(415);
      expect(envelope(response.body).message, String(type)).toMatch(/application\/json/);
    }
    for (const type of ["application/json", "application/json; charset=utf-8", "Application/JSON"]) {
      expect((await raw(url, { body, headers: { "content-type": type } })).status, type).toBe(200);
    }
  });

  it("refuses a request from a web page of another origin with 403, unless allowedOrigins names it", async () => {
    const { url, port } = await start({ allowedOrigins: ["https://app.example", "http://localhost:5173/"] });
    // The request: what a page on evil.example makes a browser send.
    const evil = await raw(url, {
      body: JSON.stringify(query),
      headers: { "content-type": "text/plain", origin: "http://evil.example" },
    });
    expect(evil.status).toBe(403);
    expect(envelope(evil.body).message).toMatch(/Origin 'http:\/\/evil\.example' is not allowed/);
    for (const origin of [
      "http://evil.example",
      "null",
      "https://app.example.evil",
      "http://app.example",
      "http://localhost:5174",
      `http://127.0.0.1:${port + 1}`,
      "not an origin",
    ]) {
      expect((await post(url, query, { origin })).status, origin).toBe(403);
    }
    const allowed = [
      "https://app.example",
      "http://localhost:5173",
      `http://127.0.0.1:${port}`, // the server's own origin
    ];
    for (const origin of allowed) expect((await post(url, query, { origin })).status, origin).toBe(200);
    // Its own origin is the one the Host header names.
    expect((await post(url, query, { host: `localhost:${port}`, origin: `http://localhost:${port}` })).status).toBe(
      200,
    );
    expect((await post(url, query, { host: `localhost:${port}`, origin: `http://127.0.0.1:${port + 1}` })).status).toBe(
      403,
    );
    // Hosts and tools send no Origin: not concerned.
    expect((await post(url, query)).status).toBe(200);
  });

  it("refuses an allowedOrigins entry that is not an origin, with a coded error", () => {
    for (const bad of ["app.example", "ftp://app.example", "*", ""]) {
      expect(() => createHttpApp(provider(), { allowedOrigins: [bad] }), bad).toThrow(
        expect.objectContaining({ code: ERROR_CODES.HTTP_CONFIG }),
      );
    }
  });

  it("serves /healthz, and answers other methods and paths with an error envelope", async () => {
    const { url } = await start();
    const health = await raw(`${url}healthz`, { method: "GET" });
    expect(health.status).toBe(200);
    expect(JSON.parse(health.body)).toMatchObject({ status: "ok", provider: "http-test" });
    expect((await raw(url, { method: "GET" })).status).toBe(405);
    const missing = await raw(`${url}nowhere`, { method: "POST", body: "{}" });
    expect(missing.status).toBe(404);
    expect(envelope(missing.body).type).toBe("error");
  });
});

describe("parseListenAddress", () => {
  it("reads [host:]port and refuses anything else", async () => {
    const { parseListenAddress } = await import("./server.js");
    expect(parseListenAddress("8080")).toEqual({ host: "127.0.0.1", port: 8080 });
    expect(parseListenAddress("0.0.0.0:0")).toEqual({ host: "0.0.0.0", port: 0 });
    expect(parseListenAddress("[::1]:9000")).toEqual({ host: "::1", port: 9000 });
    expect(parseListenAddress("localhost:65535")).toEqual({ host: "localhost", port: 65535 });
    for (const bad of ["", "x", "80a", "host:", ":80", "1:2:3", "70000", "[::1]"]) {
      expect(parseListenAddress(bad), bad).toBeUndefined();
    }
  });
});
