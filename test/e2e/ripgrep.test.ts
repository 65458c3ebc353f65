/**
 * `ocp-ripgrep` as a host meets it: the real bin in a real child process, over stdio
 * and over --http, on a fixture tree — handshake (H1–H3), frame validity (F1–F3),
 * budget honesty (B1) with exact costs, digests re-read from disk, malformed-input
 * tolerance (R1), clean shutdown (R2), and root confinement over the wire.
 */
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createTokenCounter } from "ocp-provider";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { findRipgrep } from "../../plugins/ripgrep/src/rg-binary.js";
import { createFixtureTree, verifyAgainstDisk } from "../../plugins/ripgrep/src/test-support/fixture-tree.js";
import { type Child, exitWithin, spawnNode } from "../support/child.js";
import { assertReferenceValid } from "../support/reference-schema.js";

const BIN = fileURLToPath(new URL("../../plugins/ripgrep/bin/ocp-ripgrep.js", import.meta.url));
const counter = createTokenCounter();
const tree = createFixtureTree();
const children: Child[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.process.kill("SIGKILL");
});
afterAll(() => tree.remove());

function serve(args: string[] = []): Child {
  const child = spawnNode([BIN, "--root", tree.root, ...args], { OCP_LOG: "debug" });
  children.push(child);
  return child;
}

async function next(child: Child) {
  const message = JSON.parse(await child.nextLine());
  assertReferenceValid(message);
  return message;
}

const query = (text: string, maxTokens: number, maxFrames = 8, anchors: string[] = []) => ({
  type: "query",
  query: { goal: `find ${text}`, query_text: text, kinds: [], anchors, max_frames: maxFrames, max_tokens: maxTokens },
});

interface WireFrame {
  kind: string;
  score: number;
  title: string;
  citation_label: string;
  content: string;
  token_cost: number;
  uri: string;
  provenance: { type: string; range?: string; digest?: string; method?: string }[];
}

/** F1–F3, B1, exact costs, content and digest re-read from disk, nothing from where it must not come. */
function checkFrames(reply: { type: string; result: { frames: WireFrame[] } }, maxTokens: number, maxFrames: number) {
  expect(reply.type).toBe("frames");
  const { frames } = reply.result;
  expect(frames.length).toBeLessThanOrEqual(maxFrames);
  expect(frames.reduce((sum, frame) => sum + frame.token_cost, 0)).toBeLessThanOrEqual(maxTokens);
  for (const frame of frames) {
    expect(frame.kind).toBe("snippet");
    expect(frame.score).toBeGreaterThanOrEqual(0);
    expect(frame.score).toBeLessThanOrEqual(1);
    expect(frame.title.trim()).not.toBe("");
    expect(frame.citation_label.trim()).not.toBe("");
    expect(frame.token_cost).toBe(counter.count(frame.content));
    expect(frame.provenance[0]).toMatchObject({ type: "file", method: "ripgrep" });
    verifyAgainstDisk(frame);
  }
  const text = JSON.stringify(frames);
  expect(tree.forbidden.filter((word) => text.includes(word))).toEqual([]);
  return frames;
}

describe("ocp-ripgrep over stdio (a real child process)", () => {
  it("answers the handshake before any search work, then conforms under every budget", async () => {
    // A logging wrapper around the real rg shows when the provider first runs it.
    const log = join(tree.base, "rg-calls.log");
    const wrapper = join(tree.base, "rg-wrapper.sh");
    writeFileSync(wrapper, `#!/bin/sh\necho "$@" >> '${log}'\nexec '${(await findRipgrep()).path}' "$@"\n`);
    chmodSync(wrapper, 0o755);
    const child = serve(["--rg", wrapper]);

    child.send({ type: "handshake", protocol_version: "ocp/1.0-draft" });
    const ack = await next(child);
    expect(ack).toMatchObject({
      type: "handshake_ack",
      protocol_version: "ocp/1.0-draft",
      provider: { name: "ripgrep", data_flow: { reads: true, writes: false, egress: false } },
      capabilities: { query: { kinds: ["snippet"] }, upsert: false, graph: false, subscribe: false },
    });
    expect(existsSync(log)).toBe(false);

    for (const [maxTokens, maxFrames] of [
      [4000, 8],
      [300, 3],
      [30, 2],
      [1, 5],
      [0, 5],
    ] as const) {
      child.send(query("budget parseConfigFile", maxTokens, maxFrames));
      const frames = checkFrames(await next(child), maxTokens, maxFrames);
      if (maxTokens === 4000) expect(frames.length).toBeGreaterThan(2);
    }
    expect(readFileSync(log, "utf8")).toContain("--json");

    for (const junk of ["{", "\u0000\u0001binary", '{"type":"query"}', '{"type":"nope"}', "x".repeat(2_000_000)]) {
      child.send(`${junk}\n`);
      expect((await next(child)).type).toBe("error");
    }
    // Flag-like text and outside anchors over the wire: text stays text, the outside stays unread.
    const outsideAnchors = ["../outside/secret.txt", join(tree.outside, "secret.txt")];
    child.send(query('--pre=./pre.sh "--pre=./pre.sh" -e OUTSIDE_SECRET --no-ignore budget', 4000, 8, outsideAnchors));
    expect(checkFrames(await next(child), 4000, 8).length).toBeGreaterThan(0);
    expect(existsSync(tree.marker)).toBe(false);

    child.send({ type: "shutdown" });
    expect((await exitWithin(child, 2000)).code).toBe(0);
    for (const line of child.lines) assertReferenceValid(JSON.parse(line));
    expect(child.stderr()).toMatch(/matching lines in \d+ files/);
  });

  it("reports a version-family mismatch as a named error", async () => {
    const child = serve();
    child.send({ type: "handshake", protocol_version: "ocp/2.0" });
    const reply = await next(child);
    expect(reply.type).toBe("error");
    expect(reply.message).toContain("ocp/2.0");
  });

  it("exits 0 on stdin EOF (answering what is in flight) and on SIGTERM", async () => {
    const eof = serve();
    eof.send({ type: "handshake", protocol_version: "ocp/1.0-draft" });
    await next(eof);
    eof.send(query("budget", 500));
    eof.process.stdin.end();
    expect((await exitWithin(eof, 2000)).code).toBe(0);
    expect(eof.lines).toHaveLength(2);
    checkFrames(JSON.parse(eof.lines[1] as string), 500, 8);

    const term = serve();
    term.send({ type: "handshake", protocol_version: "ocp/1.0-draft" });
    await next(term);
    term.process.kill("SIGTERM");
    expect((await exitWithin(term, 2000)).code).toBe(0);
  });

  it("refuses a bad command line with exit 2, a missing rg with exit 1, and says why", async () => {
    const missing = spawnNode([BIN, "--root", join(tree.base, "no-such-dir")]);
    children.push(missing);
    expect((await exitWithin(missing, 5000)).code).toBe(2);
    expect(missing.stderr()).toMatch(/does not exist/);
    const unknown = spawnNode([BIN, "--frobnicate"]);
    children.push(unknown);
    expect((await exitWithin(unknown, 5000)).code).toBe(2);
    expect(unknown.lines).toEqual([]);
    const noRg = spawnNode([BIN, "--root", tree.root, "--rg", join(tree.base, "no-such-rg")]);
    children.push(noRg);
    expect((await exitWithin(noRg, 5000)).code).toBe(1);
    expect(noRg.stderr()).toMatch(/ripgrep not found/);
    expect(noRg.lines).toEqual([]);
    const help = spawnNode([BIN, "--help"]);
    children.push(help);
    expect((await exitWithin(help, 5000)).code).toBe(0);
    expect(help.lines.join("\n")).toContain("ocp-ripgrep [--root DIR] [--http [host:]port]");
  });
});

describe("ocp-ripgrep over --http (a real child process)", () => {
  async function serveHttp(args: string[] = []): Promise<{ child: Child; url: string }> {
    const child = serve(["--http", "127.0.0.1:0", ...args]);
    const deadline = Date.now() + 10_000;
    while (!/listening on (http:\S+)/.test(child.stderr())) {
      if (Date.now() > deadline) throw new Error(`no 'listening on' line; stderr:\n${child.stderr()}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    return { child, url: (/listening on (http:\S+)/.exec(child.stderr()) as RegExpExecArray)[1] as string };
  }
  const post = async (url: string, body: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(url, {
      method: "POST",
      headers,
      body: typeof body === "string" ? body : JSON.stringify(body),
    });
    const message = JSON.parse(await response.text());
    assertReferenceValid(message);
    return { status: response.status, message };
  };

  it("meets the same requirements over HTTP, with a bearer token, and drains on SIGTERM", async () => {
    const { child, url } = await serveHttp(["--token", "s3cret"]);
    const auth = { authorization: "Bearer s3cret" };
    expect((await post(url, { type: "handshake", protocol_version: "ocp/1.0-draft" })).status).toBe(401);
    const ack = await post(url, { type: "handshake", protocol_version: "ocp/1.0-draft" }, auth);
    expect(ack).toMatchObject({ status: 200, message: { type: "handshake_ack", provider: { name: "ripgrep" } } });
    for (const [maxTokens, maxFrames] of [
      [3000, 6],
      [40, 1],
    ] as const) {
      const { status, message } = await post(url, query("budget unicode Größe", maxTokens, maxFrames), auth);
      expect(status).toBe(200);
      const frames = checkFrames(message, maxTokens, maxFrames);
      if (maxTokens === 3000) expect(frames.map((frame) => frame.citation_label)).toContain("docs/unicode.md L1-5");
    }
    expect((await post(url, "{not json", auth)).status).toBe(400);
    expect((await post(url, { type: "handshake", protocol_version: "ocp/9.1" }, auth)).message.message).toContain(
      "ocp/9.1",
    );
    expect((await post(url, query("latinBudget crlfBudget", 2000), auth)).status).toBe(200);
    child.process.kill("SIGTERM");
    expect((await exitWithin(child, 3000)).code).toBe(0);
  });
});
