/**
 * `ocp-ripgrep` as a host meets it: the real bin in a real child process, over stdio
 * and over --http, on a fixture tree — handshake (H1–H3), frame validity (F1–F3),
 * budget honesty (B1) with exact costs, digests re-read from disk, malformed-input
 * tolerance (R1), clean shutdown (R2), root confinement over the wire, and the bounds
 * that hold under pipelined load (concurrent rg, the queue, goals of any length).
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { DEFAULTS } from "../../plugins/ripgrep/src/options.js";
import { findRipgrep } from "../../plugins/ripgrep/src/rg-binary.js";
import {
  createFixtureTree,
  linkFollowingRg,
  verifyAgainstDisk,
} from "../../plugins/ripgrep/src/test-support/fixture-tree.js";
import { type Child, exitWithin, trackChildren } from "../test-support/child.js";
import { handshake, nextEnvelope, postEnvelope } from "../test-support/envelopes.js";
import { listeningUrl } from "../test-support/listening.js";
import * as check from "../test-support/provider-checks.js";

const BIN = fileURLToPath(new URL("../../plugins/ripgrep/bin/ocp-ripgrep.js", import.meta.url));
const tree = createFixtureTree();
const children = trackChildren();
afterEach(children.killAll);
afterAll(() => tree.remove());

function serve(args: string[] = []): Child {
  return children.spawn([BIN, "--root", tree.root, ...args], { OCP_LOG: "debug" });
}

const query = (text: string, maxTokens: number, maxFrames = 8, anchors: string[] = []) => ({
  type: "query",
  query: { goal: `find ${text}`, query_text: text, kinds: [], anchors, max_frames: maxFrames, max_tokens: maxTokens },
});

interface WireFrame extends check.CheckedFrame {
  kind: string;
  uri: string;
  provenance: { type: string; range?: string; digest?: string; method?: string }[];
}

/** The generic frame checks, then content and digest re-read from disk, nothing from where it must not come. */
function checkFrames(reply: { type: string; result: { frames: WireFrame[] } }, maxTokens: number, maxFrames: number) {
  const frames = check.genericFrames(reply, maxTokens, maxFrames);
  for (const frame of frames) {
    expect(frame.kind).toBe("snippet");
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

    const ack = await handshake(child);
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
      const frames = checkFrames(await nextEnvelope(child), maxTokens, maxFrames);
      if (maxTokens === 4000) expect(frames.length).toBeGreaterThan(2);
    }
    expect(readFileSync(log, "utf8")).toContain("--json");

    await check.garbageAnsweredWithErrors(child);
    // Flag-like text and outside anchors over the wire: text stays text, the outside stays unread.
    const outsideAnchors = ["../outside/secret.txt", join(tree.outside, "secret.txt")];
    child.send(query('--pre=./pre.sh "--pre=./pre.sh" -e OUTSIDE_SECRET --no-ignore budget', 4000, 8, outsideAnchors));
    expect(checkFrames(await nextEnvelope(child), 4000, 8).length).toBeGreaterThan(0);
    expect(existsSync(tree.marker)).toBe(false);

    await check.shutdown(child, 2000);
    expect(child.stderr()).toMatch(/matching lines in \d+ files/);
  });

  it("serves nothing from outside the root even when rg reads through links (its race, made certain)", async () => {
    const child = serve(["--rg", linkFollowingRg(tree.base, (await findRipgrep()).path)]);
    await handshake(child);
    for (let round = 0; round < 2; round++) {
      child.send(query("OUTSIDE_SECRET budget", 4000, 8));
      expect(checkFrames(await nextEnvelope(child), 4000, 8).length).toBeGreaterThan(0);
    }
    expect(child.stderr()).toMatch(/warn: .*skipped link-to-secret\.txt: OCP_ERR_SYMLINK/);
    expect(child.stderr()).toMatch(/warn: .*skipped link-to-outside\/secret\.txt: OCP_ERR_OUTSIDE_ROOT/);
    await check.shutdown(child, 2000);
  });

  it("reports a version-family mismatch as a named error", async () => {
    await check.versionMismatch(serve(), "ocp/2.0");
  });

  it("exits 0 on stdin EOF (answering what is in flight) and on SIGTERM", async () => {
    const eof = serve();
    await handshake(eof);
    eof.send(query("budget", 500));
    await check.exitsOnEof(eof, 2000);
    expect(eof.lines).toHaveLength(2);
    checkFrames(JSON.parse(eof.lines[1] as string), 500, 8);

    const term = serve();
    await handshake(term);
    await check.exitsOnSigterm(term, 2000);
  });

  it("refuses a bad command line with exit 2, a missing rg with exit 1, and says why", async () => {
    const missing = children.spawn([BIN, "--root", join(tree.base, "no-such-dir")]);
    expect((await exitWithin(missing, 5000)).code).toBe(2);
    expect(missing.stderr()).toMatch(/does not exist/);
    const unknown = children.spawn([BIN, "--frobnicate"]);
    expect((await exitWithin(unknown, 5000)).code).toBe(2);
    expect(unknown.lines).toEqual([]);
    const noRg = children.spawn([BIN, "--root", tree.root, "--rg", join(tree.base, "no-such-rg")]);
    expect((await exitWithin(noRg, 5000)).code).toBe(1);
    expect(noRg.stderr()).toMatch(/ripgrep not found/);
    expect(noRg.lines).toEqual([]);
    const help = children.spawn([BIN, "--help"]);
    expect((await exitWithin(help, 5000)).code).toBe(0);
    expect(help.lines.join("\n")).toContain("ocp-ripgrep [--root DIR] [--http [host:]port]");
  });
});

describe("ocp-ripgrep over --http (a real child process)", () => {
  it("meets the same requirements over HTTP, with a bearer token, and drains on SIGTERM", async () => {
    const child = serve(["--http", "127.0.0.1:0", "--token", "s3cret"]);
    const url = await listeningUrl(child);
    const auth = { authorization: "Bearer s3cret" };
    const post = (body: unknown) => postEnvelope(url, body, auth);
    expect((await postEnvelope(url, { type: "handshake", protocol_version: "ocp/1.0-draft" })).status).toBe(401);
    const ack = await post({ type: "handshake", protocol_version: "ocp/1.0-draft" });
    expect(ack).toMatchObject({ status: 200, message: { type: "handshake_ack", provider: { name: "ripgrep" } } });
    for (const [maxTokens, maxFrames] of [
      [3000, 6],
      [40, 1],
    ] as const) {
      const { status, message } = await post(query("budget unicode Größe", maxTokens, maxFrames));
      expect(status).toBe(200);
      const frames = checkFrames(message, maxTokens, maxFrames);
      if (maxTokens === 3000) expect(frames.map((frame) => frame.citation_label)).toContain("docs/unicode.md L1-5");
    }
    await check.httpRejectsMalformed(post, query("latinBudget crlfBudget", 2000));
    await check.exitsOnSigterm(child, 3000);
  });
});

/**
 * An rg wrapper that records, as each search starts, how many searches are running
 * (itself included), optionally waits, then runs the real rg. It runs rg as its child
 * rather than exec'ing it, so that it can tell when the search is over.
 */
async function countingRg(delaySeconds = 0): Promise<{ path: string; counts: () => number[] }> {
  const dir = mkdtempSync(join(tree.base, "counting-rg-"));
  const live = join(dir, "live");
  const counts = join(dir, "counts");
  mkdirSync(live);
  const path = join(dir, "rg.sh");
  writeFileSync(
    path,
    [
      "#!/bin/sh",
      `: > '${live}/'$$`,
      // A function's own arguments: counts the live files without a fork, and leaves "$@" alone.
      `running() { echo $# >> '${counts}'; }`,
      `running '${live}'/*`,
      delaySeconds > 0 ? `sleep ${delaySeconds}` : "",
      `'${(await findRipgrep()).path}' "$@"`,
      "code=$?",
      `rm -f '${live}/'$$`,
      "exit $code",
      "",
    ].join("\n"),
  );
  chmodSync(path, 0o755);
  return {
    path,
    counts: () => (existsSync(counts) ? readFileSync(counts, "utf8").split(/\s+/).filter(Boolean).map(Number) : []),
  };
}

/** `count` queries as one write: the host pipelines them without waiting for a reply. */
function pipeline(child: Child, texts: readonly string[], count: number, maxTokens: number): void {
  const lines = Array.from({ length: count }, (_, i) =>
    JSON.stringify(query(texts[i % texts.length] as string, maxTokens)),
  );
  child.send(`${lines.join("\n")}\n`);
}

describe("ocp-ripgrep under pipelined load (a real child process, real rg)", () => {
  it("answers 1000 pipelined queries in order, none timed out, never running more rg than the default bound", async () => {
    const rg = await countingRg();
    const child = serve(["--rg", rg.path, "--max-queued", "1000", "--queue-timeout", "600000"]);
    await handshake(child);
    const texts = ["parseConfigFile", "packUnderBudget", "crlfBudget", "latinBudget", "lastLineBudget"];
    // Each query's answer on its own: the pipelined replies must be exactly these, in order.
    const alone: string[] = [];
    for (const text of texts) {
      child.send(query(text, 4000));
      const reply = await nextEnvelope(child);
      checkFrames(reply, 4000, 8);
      alone.push(JSON.stringify(reply.result));
    }
    expect(new Set(alone).size).toBe(texts.length);

    const count = 1000;
    pipeline(child, texts, count, 4000);
    for (let i = 0; i < count; i++) {
      const reply = await nextEnvelope(child, 240_000);
      if (reply.type !== "frames") throw new Error(`reply ${i} is not frames: ${JSON.stringify(reply)}`);
      if (JSON.stringify(reply.result) !== alone[i % texts.length]) {
        throw new Error(`reply ${i} is not the answer to query ${i} (out of order, or cut short)`);
      }
    }
    const counts = rg.counts();
    expect(counts).toHaveLength(count + texts.length);
    expect(Math.max(...counts)).toBeLessThanOrEqual(DEFAULTS.maxConcurrentSearches);
    expect(child.stderr()).not.toMatch(/timed out|\(timeout\)|OCP_ERR_/);
    await check.shutdown(child, 5000);
  }, 300_000);

  it("answers queries past a tiny queue with OCP_ERR_BUSY, in their turn, without running rg for them", async () => {
    const rg = await countingRg(0.5);
    // A long queue timeout: this is about the queue's size, not about waiting.
    const child = serve(["--rg", rg.path, "--max-searches", "1", "--max-queued", "2", "--queue-timeout", "60000"]);
    await handshake(child);
    pipeline(child, ["parseConfigFile"], 8, 4000);
    const replies = [];
    for (let i = 0; i < 8; i++) replies.push(await nextEnvelope(child, 20_000));
    expect(replies.map((reply) => reply.type)).toEqual([...Array(3).fill("frames"), ...Array(5).fill("error")]);
    for (const reply of replies.slice(0, 3)) checkFrames(reply, 4000, 8);
    for (const reply of replies.slice(3)) expect(reply.message).toMatch(/^OCP_ERR_BUSY: plugin 'ripgrep' is busy/);
    // One search at a time, and only the three the queue held.
    expect(rg.counts()).toEqual([1, 1, 1]);
    await check.shutdown(child, 5000);
  });

  it("answers a goal holding a 7,000-character and a 200 KiB word from its other terms", async () => {
    const child = serve();
    await handshake(child);
    const goal = `budget ${"x".repeat(7000)} parseConfigFile ${"y".repeat(200 * 1024)} packUnderBudget`;
    child.send({ type: "query", query: { goal, kinds: [], anchors: [], max_frames: 8, max_tokens: 4000 } });
    const frames = checkFrames(await nextEnvelope(child), 4000, 8);
    const files = frames.map((frame) => frame.citation_label.replace(/ L\d+(-\d+)?$/, ""));
    expect(files).toEqual(expect.arrayContaining(["src/config.ts", "src/packer.ts"]));
    await check.shutdown(child, 5000);
  });
});
