/**
 * `ocp serve examples/docs-provider.ts` as a host meets it: a real child process
 * over stdio and over --http, checked against the provider-side requirements of the
 * spec — handshake (H1–H3), frame validity (F1–F3), budget honesty (B1),
 * malformed-input tolerance (R1) and clean shutdown (R2).
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { createTokenCounter, sliceLines } from "ocp-provider";
import { afterEach, describe, expect, it } from "vitest";
import { type Child, exitWithin, OCP_BIN, spawnNode } from "../support/child.js";
import { assertReferenceValid } from "../support/reference-schema.js";

const EXAMPLE = "examples/docs-provider.ts";
const counter = createTokenCounter();
const children: Child[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.process.kill("SIGKILL");
});

function serve(args: string[] = []): Child {
  const child = spawnNode([OCP_BIN, "serve", EXAMPLE, ...args]);
  children.push(child);
  return child;
}

async function next(child: Child) {
  const message = JSON.parse(await child.nextLine());
  assertReferenceValid(message);
  return message;
}

const query = (goal: string, maxTokens: number, maxFrames = 5) => ({
  type: "query",
  query: { goal, kinds: [], anchors: [], max_frames: maxFrames, max_tokens: maxTokens },
});

/** Checks F1–F3, B1, exact costs and verifiable digests on one frames reply. */
function checkFrames(
  reply: { type: string; result: { frames: Record<string, unknown>[] } },
  maxTokens: number,
  maxFrames: number,
) {
  expect(reply.type).toBe("frames");
  const frames = reply.result.frames as {
    score: number;
    title: string;
    citation_label: string;
    content: string;
    token_cost: number;
    uri: string;
    provenance: { range: string; digest: string }[];
  }[];
  expect(frames.length).toBeLessThanOrEqual(maxFrames);
  expect(frames.reduce((sum, frame) => sum + frame.token_cost, 0)).toBeLessThanOrEqual(maxTokens);
  for (const frame of frames) {
    expect(frame.score).toBeGreaterThanOrEqual(0);
    expect(frame.score).toBeLessThanOrEqual(1);
    expect(frame.title.trim()).not.toBe("");
    expect(frame.citation_label.trim()).not.toBe("");
    expect(frame.token_cost).toBe(counter.count(frame.content));
    // The digest and range name exactly these bytes of the file on disk.
    const [, first, last] = /^L(\d+)(?:-(\d+))?$/.exec(frame.provenance[0]?.range ?? "") ?? [];
    const source = readFileSync(fileURLToPath(frame.uri), "utf8");
    const lines = sliceLines(source, Number(first), Number(last ?? first));
    expect(lines).toBe(frame.content);
    expect(frame.provenance[0]?.digest).toBe(`sha256:${createHash("sha256").update(lines).digest("hex")}`);
  }
  return frames;
}

describe("docs provider over stdio (a real child process)", () => {
  it("handshakes, answers within budget with valid frames, survives garbage and exits 0 on shutdown", async () => {
    const child = serve();
    child.send({ type: "handshake", protocol_version: "ocp/1.0-draft" });
    const ack = await next(child);
    expect(ack).toMatchObject({ type: "handshake_ack", protocol_version: "ocp/1.0-draft", provider: { name: "docs" } });
    expect(ack.provider.data_flow).toEqual({ reads: true, writes: false, egress: false });

    for (const [maxTokens, maxFrames] of [
      [2000, 5],
      [150, 3],
      [10, 2],
      [0, 5],
    ] as const) {
      child.send(query("how do I write a plugin and handle errors", maxTokens, maxFrames));
      const reply = await next(child);
      const frames = checkFrames(reply, maxTokens, maxFrames);
      if (maxTokens === 2000) expect(frames.length).toBeGreaterThan(0);
    }

    for (const junk of ["{", "\u0000\u0001binary", '{"type":"query"}', '{"type":"nope"}', "x".repeat(2_000_000)]) {
      child.send(`${junk}\n`);
      expect((await next(child)).type).toBe("error");
    }
    child.send(query("plugins", 500));
    checkFrames(await next(child), 500, 5);

    child.send({ type: "shutdown" });
    const { code } = await exitWithin(child, 2000);
    expect(code).toBe(0);
    // Nothing but envelopes ever reached stdout.
    for (const line of child.lines) assertReferenceValid(JSON.parse(line));
  });

  it("reports a version-family mismatch as a named error, never an ack", async () => {
    const child = serve();
    child.send({ type: "handshake", protocol_version: "ocp/2.0" });
    const reply = await next(child);
    expect(reply.type).toBe("error");
    expect(reply.message).toContain("ocp/2.0");
    expect(reply.message).toContain("ocp/1.0-draft");
  });

  it("exits 0 on stdin EOF and on SIGTERM, writing in-flight replies first", async () => {
    const eof = serve();
    eof.send({ type: "handshake", protocol_version: "ocp/1.0-draft" });
    await next(eof);
    eof.send(query("plugins", 300));
    eof.process.stdin.end();
    expect((await exitWithin(eof, 2000)).code).toBe(0);
    expect(eof.lines).toHaveLength(2);

    const term = serve();
    term.send({ type: "handshake", protocol_version: "ocp/1.0-draft" });
    await next(term);
    term.process.kill("SIGTERM");
    expect((await exitWithin(term, 2000)).code).toBe(0);
  });
});

describe("docs provider over --http (a real child process)", () => {
  async function serveHttp(): Promise<{ child: Child; url: string }> {
    const child = serve(["--http", "127.0.0.1:0"]);
    const deadline = Date.now() + 10_000;
    while (!/listening on (http:\S+)/.test(child.stderr())) {
      if (Date.now() > deadline) throw new Error(`no 'listening on' line; stderr:\n${child.stderr()}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    return { child, url: (/listening on (http:\S+)/.exec(child.stderr()) as RegExpExecArray)[1] as string };
  }
  const post = async (url: string, body: unknown) => {
    const response = await fetch(url, { method: "POST", body: typeof body === "string" ? body : JSON.stringify(body) });
    const message = JSON.parse(await response.text());
    assertReferenceValid(message);
    return { status: response.status, message };
  };

  it("meets the same requirements over HTTP and drains on SIGTERM", async () => {
    const { child, url } = await serveHttp();
    const ack = await post(url, { type: "handshake", protocol_version: "ocp/1.0-draft" });
    expect(ack).toMatchObject({ status: 200, message: { type: "handshake_ack" } });
    for (const [maxTokens, maxFrames] of [
      [2000, 5],
      [40, 1],
    ] as const) {
      const { status, message } = await post(url, query("plugins and errors", maxTokens, maxFrames));
      expect(status).toBe(200);
      checkFrames(message, maxTokens, maxFrames);
    }
    expect((await post(url, "{not json")).status).toBe(400);
    expect((await post(url, { type: "handshake", protocol_version: "ocp/9.1" })).message.message).toContain("ocp/9.1");
    expect((await post(url, query("still up", 100))).status).toBe(200);
    child.process.kill("SIGTERM");
    expect((await exitWithin(child, 3000)).code).toBe(0);
  });
});
