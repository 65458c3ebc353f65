/**
 * `ocp-symbols` as a host meets it: the real bin in a child process, over stdio and
 * over --http, indexing a temporary copy of the plugin's fixtures (plus generated
 * files, so the first build takes a while). Checked: the handshake is answered before
 * the first build finishes (H1–H3), frame validity (F1–F3), budget honesty (B1),
 * exact token costs, digests re-read from disk, malformed-input tolerance (R1),
 * clean shutdown with exit 0 (R2), and that an edit shows up in the next answer.
 */
import { mkdtempSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { contentDigest, sliceLines } from "ocp-provider";
import { afterEach, describe, expect, it } from "vitest";
import { type FixtureTree, fixtureTree } from "../../plugins/symbols/src/test-support/fixture-tree.js";
import { type Child, trackChildren } from "../test-support/child.js";
import { handshake, nextEnvelope, postEnvelope } from "../test-support/envelopes.js";
import { listeningUrl } from "../test-support/listening.js";
import * as check from "../test-support/provider-checks.js";

const BIN = fileURLToPath(new URL("../../plugins/symbols/bin/ocp-symbols.js", import.meta.url));
/** How long to wait for a reply: a query may wait for the first build. */
const REPLY_MS = 20_000;
/** How long to wait for an exit. */
const EXIT_MS = 3000;
const children = trackChildren();
const trees: FixtureTree[] = [];
afterEach(() => {
  children.killAll();
  for (const tree of trees.splice(0)) tree.remove();
});

/** The fixtures plus enough generated modules that the first build is not instant. */
function tree(): FixtureTree {
  const made = fixtureTree();
  trees.push(made);
  for (let i = 0; i < 400; i++) {
    made.write(
      `generated/module${i}.ts`,
      `/** Module ${i}. */\nexport class Widget${i} {\n  /** Renders it. */\n  render(depth: number): string {\n    return "w${i}".repeat(depth);\n  }\n}\n`,
    );
  }
  return made;
}

function serve(root: string, args: string[] = []): Child {
  return children.spawn([BIN, "--root", root, ...args], { OCP_LOG: "info" });
}

const next = (child: Child) => nextEnvelope(child, REPLY_MS);

const query = (goal: string, maxTokens: number, maxFrames = 5, anchors: string[] = []) => ({
  type: "query",
  query: { goal, kinds: [], anchors, max_frames: maxFrames, max_tokens: maxTokens },
});

interface Frame extends check.CheckedFrame {
  id: string;
  kind: string;
  uri: string;
  provenance: { type: string; range: string; digest: string; method: string }[];
  relations: { rel: string; target_uri: string; display_name?: string }[];
}

/** The generic frame checks, then digests and ranges re-read from the file on disk. */
function checkFrames(
  reply: { type: string; result: { frames: Frame[] } },
  maxTokens: number,
  maxFrames: number,
): Frame[] {
  const frames = check.genericFrames(reply, maxTokens, maxFrames);
  for (const frame of frames) {
    expect(frame.kind).toBe("symbol");
    const [, first, last] = /^L(\d+)(?:-(\d+))?$/.exec(frame.provenance[0]?.range ?? "") ?? [];
    const source = readFileSync(fileURLToPath(frame.uri), "utf8");
    const lines = sliceLines(source, Number(first), Number(last ?? first));
    expect(frame.content).toBe(lines);
    expect(frame.provenance[0]?.digest).toBe(contentDigest(lines));
    expect(frame.provenance[0]?.type).toBe("file");
    for (const relation of frame.relations) expect(relation.display_name?.trim()).toBeTruthy();
  }
  return frames;
}

/** Records, in arrival order, the ack on stdout and the "index ready" line on stderr. */
function arrivalOrder(child: Child): string[] {
  const events: string[] = [];
  let out = "";
  let err = "";
  child.process.stdout.on("data", (chunk: Buffer | string) => {
    out += chunk.toString();
    if (!events.includes("ack") && out.includes('"handshake_ack"')) events.push("ack");
  });
  child.process.stderr.on("data", (chunk: Buffer | string) => {
    err += chunk.toString();
    if (!events.includes("ready") && err.includes("index ready")) events.push("ready");
  });
  return events;
}

async function waitFor(predicate: () => boolean, what: string, child: Child, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen; stderr:\n${child.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("ocp-symbols over stdio (a real child process)", () => {
  it("acks before the first build finishes, answers within budget with verifiable frames, survives garbage, exits 0", async () => {
    const fixtures = tree();
    const child = serve(fixtures.root);
    const events = arrivalOrder(child);
    const ack = await handshake(child, { timeoutMs: REPLY_MS });
    expect(ack).toMatchObject({
      type: "handshake_ack",
      protocol_version: "ocp/1.0-draft",
      provider: { name: "symbols", data_flow: { reads: true, writes: false, egress: false } },
      capabilities: { query: { kinds: ["symbol"] }, graph: true },
    });
    await waitFor(() => events.includes("ready"), "the first build", child);
    expect(events).toEqual(["ack", "ready"]);

    for (const [maxTokens, maxFrames] of [
      [4000, 5],
      [120, 3],
      [10, 2],
      [0, 5],
    ] as const) {
      child.send(query("Where is Config.retry defined?", maxTokens, maxFrames));
      const frames = checkFrames(await next(child), maxTokens, maxFrames);
      if (maxTokens === 4000) {
        // The method, or a larger view of it (its title says what else it holds after the method's).
        expect(frames[0]?.title).toMatch(/^Config\.retry \(method\)/);
        expect(frames.map((frame) => frame.provenance[0]?.method)).toContain("ts-morph");
        expect(frames.flatMap((frame) => frame.relations.map((relation) => relation.rel))).toContain("member-of");
      }
    }
    child.send(query("Widget42.render", 500, 3));
    // The method's lines (3-6), whole or within a larger view of its file.
    const [, first, last] =
      /^generated\/module42\.ts L(\d+)-(\d+)$/.exec(checkFrames(await next(child), 500, 3)[0]?.citation_label ?? "") ??
      [];
    expect(Number(first)).toBeLessThanOrEqual(3);
    expect(Number(last)).toBeGreaterThanOrEqual(6);

    await check.garbageAnsweredWithErrors(child, REPLY_MS);

    // An edit shows up in the next answer.
    writeFileSync(join(fixtures.root, "go/server.go"), "package server\n\n// Launch starts it.\nfunc Launch() {}\n");
    child.send(query("Launch", 500));
    const launched = checkFrames(await next(child), 500, 5)[0];
    expect(launched?.title).toMatch(/^Launch \(function\)/);
    expect(launched?.content).toContain("// Launch starts it.\nfunc Launch() {}\n");

    await check.shutdown(child, EXIT_MS);
  });

  it("reports a version-family mismatch as a named error, and exits 0 on EOF and on SIGTERM", async () => {
    const fixtures = tree();
    const mismatch = serve(fixtures.root);
    await check.versionMismatch(mismatch, "ocp/2.0", REPLY_MS);
    await check.exitsOnEof(mismatch, EXIT_MS);

    const term = serve(fixtures.root);
    await handshake(term, { timeoutMs: REPLY_MS });
    // Mid-build: shutting down must not wait for the build.
    await check.exitsOnSigterm(term, EXIT_MS);
  });
});

describe("ocp-symbols over --http (a real child process)", () => {
  it("meets the same requirements over HTTP and drains on SIGTERM", async () => {
    const fixtures = tree();
    const child = serve(fixtures.root, ["--http", "127.0.0.1:0"]);
    const url = await listeningUrl(child, 30_000);
    const post = (body: unknown) => postEnvelope(url, body);
    const ack = await post({ type: "handshake", protocol_version: "ocp/1.0-draft" });
    expect(ack).toMatchObject({ status: 200, message: { type: "handshake_ack", capabilities: { graph: true } } });
    await waitFor(() => child.stderr().includes("index ready"), "the first build", child);
    for (const [maxTokens, maxFrames] of [
      [4000, 5],
      [60, 2],
    ] as const) {
      const { status, message } = await post(query("parse_config load_config", maxTokens, maxFrames));
      expect(status).toBe(200);
      checkFrames(message, maxTokens, maxFrames);
    }
    const anchored = await post(query("Server", 3000, 3, ["go/server.go"]));
    expect(checkFrames(anchored.message, 3000, 3)[0]?.citation_label).toMatch(/^go\/server\.go L/);
    await check.httpRejectsMalformed(post, query("still up", 100));
    await check.exitsOnSigterm(child, EXIT_MS);
  });
});

describe("ocp-symbols never serves a file outside its root (a real child process, real symlinks)", () => {
  const USERS = "def load_users():\n    return []\n";
  const MARKER = "TOP-SECRET-outside-the-root";

  /** The fixtures plus `src/users.py`, and outside them a secret Python file defining the same function. */
  function rootAndSecret() {
    const fixtures = fixtureTree();
    trees.push(fixtures);
    fixtures.write("src/users.py", USERS);
    const outside = mkdtempSync(join(tmpdir(), "ocp-symbols-outside-"));
    trees.push({ root: outside, write: () => {}, remove: () => rmSync(outside, { recursive: true, force: true }) });
    const secret = join(outside, "secret.py");
    writeFileSync(secret, `def load_users():\n    return '${MARKER}'\n`);
    return { fixtures, secret };
  }

  /**
   * Indexes `src/users.py`, swaps it for a link to the secret (as `git pull` does),
   * then queries twice. With `pinDirectory`, `src`'s mtime is put back after the swap,
   * as tar or rsync -a would: no directory looks changed, so no fresh listing helps.
   */
  async function swapAndQuery(args: string[], pinDirectory: boolean) {
    const { fixtures, secret } = rootAndSecret();
    const src = join(fixtures.root, "src");
    const pinned = new Date(Date.UTC(2024, 0, 1));
    if (pinDirectory) utimesSync(src, pinned, pinned);
    const child = serve(fixtures.root, args);
    await handshake(child, { timeoutMs: REPLY_MS });
    await waitFor(() => child.stderr().includes("index ready"), "the first build", child);
    child.send(query("load_users", 2000));
    expect(checkFrames(await next(child), 2000, 5)[0]).toMatchObject({ citation_label: "src/users.py L1-2" });
    rmSync(join(src, "users.py"));
    symlinkSync(secret, join(src, "users.py"));
    if (pinDirectory) utimesSync(src, pinned, pinned);
    for (let round = 0; round < 2; round++) {
      child.send(query("load_users", 2000));
      const reply = await next(child);
      expect(reply.type).toBe("frames");
      expect(JSON.stringify(reply)).not.toContain(MARKER);
      const users = pathToFileURL(join(src, "users.py")).href;
      expect(reply.result.frames.some((frame: Frame) => frame.uri === users)).toBe(false);
    }
    expect(child.stderr()).toMatch(/warn: .*skipped src\/users\.py: OCP_ERR_SYMLINK/);
    expect(child.stderr()).not.toContain(MARKER);
    await check.shutdown(child, EXIT_MS);
  }

  it("watching (the default): the re-index after the swap refuses the link", async () => {
    await swapAndQuery([], false);
  });

  it("stat-checking (--no-watch): the re-index refuses the link, even with the directory's mtime put back", async () => {
    await swapAndQuery(["--no-watch"], true);
  });
});
