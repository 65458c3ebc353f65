/**
 * `ocp serve examples/docs-provider.ts` as a host meets it: a real child process
 * over stdio and over --http, checked against the provider-side requirements of the
 * spec — handshake (H1–H3), frame validity (F1–F3), budget honesty (B1),
 * malformed-input tolerance (R1) and clean shutdown (R2).
 */
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { sliceLines } from "ocp-provider";
import { afterEach, describe, expect, it } from "vitest";
import { type Child, OCP_BIN, trackChildren } from "../test-support/child.js";
import { handshake, nextEnvelope, postEnvelope } from "../test-support/envelopes.js";
import { listeningUrl } from "../test-support/listening.js";
import * as check from "../test-support/provider-checks.js";

const EXAMPLE = "examples/docs-provider.ts";
const children = trackChildren();
const temporary: string[] = [];
afterEach(() => {
  children.killAll();
  for (const dir of temporary.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function serve(args: string[] = []): Child {
  return children.spawn([OCP_BIN, "serve", EXAMPLE, ...args]);
}

const query = (goal: string, maxTokens: number, maxFrames = 5) => ({
  type: "query",
  query: { goal, kinds: [], anchors: [], max_frames: maxFrames, max_tokens: maxTokens },
});

interface WireFrame extends check.CheckedFrame {
  uri: string;
  provenance: { range: string; digest: string }[];
}

/** The generic frame checks, then verifiable digests: each frame names exactly these bytes on disk. */
function checkFrames(reply: { type: string; result: { frames: WireFrame[] } }, maxTokens: number, maxFrames: number) {
  const frames = check.genericFrames(reply, maxTokens, maxFrames);
  for (const frame of frames) {
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
    const ack = await handshake(child);
    expect(ack).toMatchObject({ type: "handshake_ack", protocol_version: "ocp/1.0-draft", provider: { name: "docs" } });
    expect(ack.provider.data_flow).toEqual({ reads: true, writes: false, egress: false });

    for (const [maxTokens, maxFrames] of [
      [2000, 5],
      [150, 3],
      [10, 2],
      [0, 5],
    ] as const) {
      child.send(query("how do I write a plugin and handle errors", maxTokens, maxFrames));
      const frames = checkFrames(await nextEnvelope(child), maxTokens, maxFrames);
      if (maxTokens === 2000) expect(frames.length).toBeGreaterThan(0);
    }

    await check.garbageAnsweredWithErrors(child);
    child.send(query("plugins", 500));
    checkFrames(await nextEnvelope(child), 500, 5);

    await check.shutdown(child, 2000);
  });

  it("reports a version-family mismatch as a named error, never an ack", async () => {
    const reply = await check.versionMismatch(serve(), "ocp/2.0");
    expect(reply.message).toContain("ocp/1.0-draft");
  });

  it("exits 0 on stdin EOF and on SIGTERM, writing in-flight replies first", async () => {
    const eof = serve();
    await handshake(eof);
    eof.send(query("plugins", 300));
    await check.exitsOnEof(eof, 2000);
    expect(eof.lines).toHaveLength(2);

    const term = serve();
    await handshake(term);
    await check.exitsOnSigterm(term, 2000);
  });
});

describe("docs provider over --http (a real child process)", () => {
  it("meets the same requirements over HTTP and drains on SIGTERM", async () => {
    const child = serve(["--http", "127.0.0.1:0"]);
    const url = await listeningUrl(child);
    const post = (body: unknown) => postEnvelope(url, body);
    const ack = await post({ type: "handshake", protocol_version: "ocp/1.0-draft" });
    expect(ack).toMatchObject({ status: 200, message: { type: "handshake_ack" } });
    for (const [maxTokens, maxFrames] of [
      [2000, 5],
      [40, 1],
    ] as const) {
      const { status, message } = await post(query("plugins and errors", maxTokens, maxFrames));
      expect(status).toBe(200);
      checkFrames(message, maxTokens, maxFrames);
    }
    await check.httpRejectsMalformed(post, query("still up", 100));
    await check.exitsOnSigterm(child, 3000);
  });
});

describe("docs provider confinement (a real child process, real symlinks)", () => {
  it("serves no file through a symlink, neither a file named in OCP_DOCS nor one inside a folder", async () => {
    const base = realpathSync(mkdtempSync(join(tmpdir(), "ocp-docs-")));
    temporary.push(base);
    const docs = join(base, "docs");
    const outside = join(base, "outside");
    mkdirSync(docs);
    mkdirSync(outside);
    writeFileSync(join(docs, "guide.md"), "# Guide\n\nWriting plugins is easy.\n");
    writeFileSync(join(outside, "secret.md"), "# Secret plugins\n\nplugins TOP-SECRET-outside-the-root\n");
    // A README that a checkout turned into a link, and a linked folder.
    symlinkSync(join(outside, "secret.md"), join(docs, "README.md"));
    symlinkSync(outside, join(docs, "linked"));
    const child = children.spawn([OCP_BIN, "serve", EXAMPLE], { OCP_DOCS: `${join(docs, "README.md")},${docs}` });
    await handshake(child);
    for (let round = 0; round < 2; round++) {
      child.send(query("plugins secret", 2000));
      const reply = await nextEnvelope(child);
      const frames = checkFrames(reply, 2000, 5);
      expect(JSON.stringify(reply)).not.toContain("TOP-SECRET");
      expect(frames.map((frame) => frame.uri)).toEqual([pathToFileURL(join(docs, "guide.md")).href]);
    }
    expect(child.stderr()).toMatch(/warn: .*README\.md: OCP_ERR_SYMLINK/);
    // One warning, not one per query.
    expect(child.stderr().match(/OCP_ERR_SYMLINK/g)).toHaveLength(1);
    await check.shutdown(child, 2000);
  });
});

describe("docs provider given goals as long as a request may be (a real child process over --http)", () => {
  /** The docs example's time limit for one search: the framework's default `pluginTimeoutMs`. */
  const TIME_LIMIT_MS = 10_000;

  it("answers each within its time limit, and /healthz meanwhile", { timeout: 60_000 }, async () => {
    const child = serve(["--http", "127.0.0.1:0"]);
    const url = await listeningUrl(child);
    const warm = await postEnvelope(url, query("plugins", 200));
    expect(warm.message.type).toBe("frames"); // the index is built: what follows is search alone
    // A pasted file's worth of the docs' own words, each in hundreds of passages: just under
    // the 1 MiB body limit. It used to be searched word by word, for seconds to minutes, while
    // the provider answered nothing else and no timer could fire.
    const pasted = "provider plugins return frames under the token budget of each query host errors ".repeat(11_000);
    const deadline = AbortSignal.timeout(TIME_LIMIT_MS);
    const post = (goal: string) =>
      fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(query(goal, 1024, 8)),
        signal: deadline,
      }).then(async (response) => ({ status: response.status, message: JSON.parse(await response.text()) }));
    // Two at once, each its own goal (no kept ranking answers the other), then /healthz.
    const replies = [1, 2].map((n) => post(`${n} ${pasted}`));
    const health = fetch(new URL("/healthz", url), { signal: deadline }).then(async (response) => ({
      status: response.status,
      body: await response.json(),
    }));
    expect(await health).toMatchObject({ status: 200, body: { status: "ok" } });
    for (const reply of await Promise.all(replies)) {
      expect(reply.status).toBe(200);
      const frames = checkFrames(reply.message, 1024, 8);
      expect(frames.length).toBeGreaterThan(0);
    }
    expect(child.stderr()).not.toMatch(/OCP_ERR_PLUGIN_TIMEOUT/);
    await check.exitsOnSigterm(child, 3000);
  });
});
