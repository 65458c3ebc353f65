/**
 * Host fan-out over real providers: one honest, one slow, one lying, one crashing,
 * one egress without consent, one serving other kinds. The honest frames arrive;
 * every other provider loses only its own frames, and the report says why.
 */
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { definePlugin } from "../provider/plugin.js";
import { defineProvider } from "../provider/provider.js";
import { connectHttp } from "../transports/http/client.js";
import { type HttpServer, serveHttp } from "../transports/http/server.js";
import { connectStdio } from "../transports/stdio/client.js";
import { Host } from "./host.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const FIXTURE = fileURLToPath(new URL("../conformance/misbehaving-provider.ts", import.meta.url));

const fixture = (mode: string, ...extra: string[]) =>
  connectStdio(process.execPath, ["--import", "tsx", FIXTURE, "--misbehave", mode, ...extra], {
    cwd: ROOT,
    report: () => {},
  });

let host: Host | undefined;
let server: HttpServer | undefined;
afterEach(async () => {
  await host?.close();
  await server?.close();
});

describe("Host", () => {
  it("fans out, isolates each provider's failure, and reports per provider", async () => {
    server = await serveHttp(
      defineProvider({
        name: "memories",
        version: "1.0.0",
        dataFlow: { reads: true, writes: false, egress: false },
        logger: { error() {}, warn() {}, info() {}, debug() {} },
        plugins: [
          definePlugin({
            name: "m",
            kinds: ["memory"],
            search: () => [{ id: "m1", title: "A memory", content: "retry once", relevance: 1 }],
          }),
        ],
      }),
    );
    const connections = await Promise.all([
      fixture("clean"),
      fixture("hang-on-query"),
      fixture("lying-costs"),
      fixture("crash-on-query"),
      fixture("clean", "--egress"),
      connectHttp(server.url, { consent: { isGranted: () => true } }),
    ]);
    const fanOut = new Host();
    host = fanOut;
    const names = ["honest", "slow", "liar", "crasher", "leaky", "memories"];
    for (const [index, connection] of connections.entries()) fanOut.add(connection, { name: names[index] });

    const result = await fanOut.query(
      { goal: "retry policy configuration", kinds: ["doc", "symbol"], max_frames: 3, max_tokens: 60 },
      // The slow one is waited out; the honest ones load their tokenizers in this time on a loaded machine.
      { timeoutMs: 6000 },
    );
    const status = Object.fromEntries(result.reports.map((report) => [report.provider, report.status]));
    expect(status).toEqual({
      honest: "answered",
      slow: "timeout",
      liar: "budget-violation",
      crasher: "unavailable",
      leaky: "consent-required",
      memories: "not-matching",
    });
    expect(result.frames.length).toBeGreaterThan(0);
    expect(result.frames.every((item) => item.provider === "honest")).toBe(true);
    expect(result.totalTokens).toBeLessThanOrEqual(60);
    expect(result.reports.find((report) => report.provider === "leaky")?.elapsedMs).toBe(0);
    expect(result.reports.find((report) => report.provider === "liar")?.message).toMatch(
      /Σ token_cost \d+ > max_tokens 60/,
    );
  });

  it("merges providers' frames by score under one budget", async () => {
    const [a, b] = await Promise.all([fixture("clean"), fixture("clean")]);
    host = new Host();
    host.add(a);
    host.add(b, { name: "second" });
    const result = await host.query({ goal: "retry policy configuration", max_frames: 3, max_tokens: 100 });
    expect(result.reports.map((report) => report.status)).toEqual(["answered", "answered"]);
    const each = [...result.byProvider.values()].map((frames) => frames.length);
    expect(each[0]).toBeGreaterThan(0);
    expect(result.frames.length).toBeLessThanOrEqual(3);
    expect(result.totalTokens).toBeLessThanOrEqual(100);
    const scores = result.frames.map((item) => item.frame.score);
    expect(scores).toEqual([...scores].sort((x, y) => y - x));
  });

  it("reports 0 ms for a provider its consent gate refused, however long the gate took", async () => {
    // A gate that takes 30 ms to say no: nothing is sent, so the provider was not asked.
    const slowNo = {
      isGranted: () => {
        const until = performance.now() + 30;
        while (performance.now() < until);
        return false;
      },
    };
    host = new Host();
    host.add(
      await connectStdio(process.execPath, ["--import", "tsx", FIXTURE, "--misbehave", "clean", "--egress"], {
        cwd: ROOT,
        report: () => {},
        consent: slowNo,
      }),
      { name: "leaky" },
    );
    const result = await host.query({ goal: "retry policy configuration", max_frames: 3, max_tokens: 60 });
    expect(result.reports).toMatchObject([{ provider: "leaky", status: "consent-required", elapsedMs: 0 }]);
  });

  it("refuses a malformed query once, before anything is sent", async () => {
    host = new Host();
    host.add(await fixture("clean"));
    await expect(host.query({ goal: "", max_frames: 1, max_tokens: 1 })).rejects.toThrow(/invalid query envelope/);
  });
});
