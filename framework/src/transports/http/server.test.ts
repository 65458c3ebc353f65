import { lookup } from "node:dns/promises";
import { request as httpRequest } from "node:http";
import { hostname, networkInterfaces } from "node:os";
import { afterEach, describe, expect, it } from "vitest";
import { assertReferenceValid } from "../../../../test/test-support/reference-schema.js";
import { ERROR_CODES } from "../../provider/errors.js";
import { silentLogger } from "../../provider/logger.js";
import { definePlugin } from "../../provider/plugin.js";
import { defineProvider } from "../../provider/provider.js";
import { isLoopback, listenHost } from "./loopback.js";
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

/** POSTs a query to `address:port` (connecting there, whatever Host says) with exactly these headers. */
function ask(address: string, port: number, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: address, port, method: "POST", headers: { "content-type": "application/json", ...headers } },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      },
    );
    req.on("error", reject);
    req.end(JSON.stringify(query));
  });
}

/** What a page on attacker.example sends once its name is rebound to this machine. */
const rebinding = (port: number) => ({ host: `attacker.example:${port}`, origin: `http://attacker.example:${port}` });

describe("DNS rebinding, on every loopback bind however it is spelled (real sockets)", () => {
  it("refuses the rebinding page and serves the legitimate host on each spelling", async () => {
    const spellings = [
      "127.0.0.1",
      "127.1",
      "0x7f.1",
      "2130706433",
      "0177.0.0.1",
      "127.0.0.1.",
      "localhost",
      "LOCALHOST",
      "localhost.",
      "::1",
      "[::1]",
      "0:0:0:0:0:0:0:1",
      "::ffff:127.0.0.1",
      "[::ffff:127.0.0.1]",
    ];
    // A name that resolves to loopback here (this machine's own name often does).
    const own = hostname();
    const ownAddress = await lookup(own).catch(() => undefined);
    if (ownAddress !== undefined && isLoopback(ownAddress.address)) spellings.push(own);
    const wrong: string[] = [];
    for (const spelling of spellings) {
      const started = await start({ host: spelling }).catch((error: Error) => error);
      if (started instanceof Error) {
        wrong.push(`${spelling}: cannot bind: ${started.message}`);
        continue;
      }
      const { port, url } = started;
      const at = listenHost(spelling);
      const cases: [string, Record<string, string>, number][] = [
        ["the rebinding page", rebinding(port), 403],
        // Only the Host, no Origin (a tool, not a page): refused all the same.
        ["a rebound Host alone", { host: `attacker.example:${port}` }, 403],
        // The legitimate requests: a host tool naming loopback, a page served from the provider's own origin.
        ["Host localhost", { host: `localhost:${port}` }, 200],
        ["its own origin", { host: `127.0.0.1:${port}`, origin: `http://127.0.0.1:${port}` }, 200],
        // And the server's own URL, as a browser or fetch() writes its Host.
        ["the URL's Host", { host: new URL(url).host }, 200],
      ];
      for (const [what, headers, expected] of cases) {
        const status = await ask(at, port, headers);
        if (status !== expected) wrong.push(`${spelling}, ${what}: ${status}, not ${expected}`);
      }
      await server?.close();
      server = undefined;
    }
    expect(wrong).toEqual([]);
  });

  it("on a wildcard bind, guards what arrives over loopback; a client on the network names the machine as it likes", async () => {
    const lan = Object.values(networkInterfaces())
      .flat()
      .find((entry) => entry !== undefined && entry.family === "IPv4" && !entry.internal)?.address;
    for (const [wildcard, loopbacks] of [
      ["0.0.0.0", ["127.0.0.1", "127.0.0.2"]],
      ["::", ["::1", "127.0.0.1"]],
    ] as const) {
      const { port } = await start({ host: wildcard });
      for (const address of loopbacks) {
        expect(await ask(address, port, rebinding(port)), `${wildcard} via ${address}`).toBe(403);
        expect(await ask(address, port, { host: `localhost:${port}` }), `${wildcard} via ${address}`).toBe(200);
      }
      if (lan !== undefined) {
        expect(await ask(lan, port, { host: `machine.example:${port}` }), `${wildcard} via ${lan}`).toBe(200);
        // Its page's own origin is its Host's: a foreign one is still refused.
        expect(await ask(lan, port, { host: `machine.example:${port}`, origin: "http://evil.example" })).toBe(403);
      }
      await server?.close();
      server = undefined;
    }
  });

  it("judges an in-process request (no socket) by the bind: a name or loopback is guarded, a wildcard is not", async () => {
    const post = (app: ReturnType<typeof createHttpApp>, host: string) =>
      app.request("/", {
        method: "POST",
        headers: { host, "content-type": "application/json" },
        body: JSON.stringify(query),
      });
    for (const bind of ["127.1", "[::ffff:127.0.0.1]", "LOCALHOST", "myhost"]) {
      const app = createHttpApp(provider(), { host: bind });
      expect((await post(app, "attacker.example")).status, bind).toBe(403);
      expect((await post(app, "localhost")).status, bind).toBe(200);
    }
    expect((await post(createHttpApp(provider(), { host: "myhost" }), "MYHOST:80")).status).toBe(200);
    expect((await post(createHttpApp(provider(), { host: "0.0.0.0" }), "attacker.example")).status).toBe(200);
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
