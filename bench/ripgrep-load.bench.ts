/**
 * ripgrep under pipelined load: the real `ocp-ripgrep` bin in a child process, over a
 * real pipe, with its default options, searching a snapshot of this repository (the
 * files the plugin sees in it — sources, docs, tests; .gitignore keeps node_modules and
 * dist out — copied to a temp dir, so editing the repository meanwhile changes nothing).
 *
 * A host writes 1,000 and then 10,000 queries in one go without waiting for a reply,
 * each run in a fresh provider that has answered one query (start-up is not load). Every reply must arrive, in request order: a `frames`
 * reply must be exactly what its query gets when asked alone (so a reply out of place,
 * or a search cut short, shows), and an `error` may only be the busy refusal
 * (`OCP_ERR_BUSY`) — never a timeout. Also measured: the provider's peak RSS (the
 * kernel's high-water mark, VmHWM) and the peak RSS of the provider with its rg
 * children (sampled every 20 ms).
 *
 * A third run gives the queue room for all 1,000 (`--max-queued 1000`, a long
 * `--queue-timeout`): every query is then served. The same queries asked one at a
 * time, in the same run, give the throughput to read the others against (reported,
 * not judged: on a shared machine it moves with the load).
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { DEFAULTS, listFiles } from "ocp-plugin-ripgrep";
import { type BenchReport, type BenchRow, checkVerdict, formatMs, formatRate, type Verdict } from "./harness.js";

const REPO = fileURLToPath(new URL("..", import.meta.url));
const BIN = fileURLToPath(new URL("../plugins/ripgrep/bin/ocp-ripgrep.js", import.meta.url));
const RSS_TARGET_MB = 250;
const SEQUENTIAL = 60;

/** Goals an agent might send about this repository; each has its own answer. */
const GOALS = [
  "how does the packer cut a candidate to fit the budget",
  "where are NDJSON lines split and overlong lines refused",
  "how is the sha256 digest of a frame computed",
  "SIGTERM drains in-flight replies then exits",
  "parseAnchors proximity of an anchored directory",
  "which tree-sitter grammars load from wasm",
  "bm25 full text search over facts",
  "bearer token check on the HTTP transport",
];

const query = (goal: string) =>
  JSON.stringify({ type: "query", query: { goal, kinds: [], anchors: [], max_tokens: 4000, max_frames: 8 } });

/** A provider child with its replies read line by line. */
interface Provider {
  readonly child: ChildProcessWithoutNullStreams;
  /** Resolves with the next `count` replies, each with when it arrived. */
  replies(count: number): Promise<{ line: string; at: number }[]>;
  /** Searches the provider said it stopped at their timeout (its stderr), and framework timeouts. */
  timeoutsLogged(): number;
  /** Peak RSS of the provider and of the provider with its rg children, in MB, and the most rg seen at once. */
  peaks(): { provider: number; withChildren: number; rg: number };
  stop(): Promise<void>;
}

/** VmRSS or VmHWM of a process in MB, or 0 once it is gone. */
function memory(pid: number, field: "VmRSS" | "VmHWM"): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1];
    return kb === undefined ? 0 : Number(kb) / 1024;
  } catch {
    return 0;
  }
}

/** The provider's direct children (rg), from the kernel's list for its main thread. */
function children(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").split(" ").filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** Copies the files the plugin sees in this repository to a temp dir; resolves to it and its size. */
async function snapshot(): Promise<{ root: string; files: number; bytes: number }> {
  const root = mkdtempSync(join(tmpdir(), "ocp-ripgrep-load-"));
  const files = await listFiles({ root: REPO });
  let bytes = 0;
  for (const file of files) {
    mkdirSync(dirname(join(root, file)), { recursive: true });
    copyFileSync(join(REPO, file), join(root, file));
    bytes += statSync(join(root, file)).size;
  }
  return { root, files: files.length, bytes };
}

function start(root: string, args: readonly string[] = []): Provider {
  const child = spawn(process.execPath, [BIN, "--root", root, ...args], { stdio: ["pipe", "pipe", "pipe"] });
  // Read it all: a provider blocked on a full stderr pipe would measure nothing.
  let timeoutsLogged = 0;
  let tail = "";
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (chunk: string) => {
    const text = tail + chunk;
    const cut = text.lastIndexOf("\n") + 1;
    timeoutsLogged += text.slice(0, cut).match(/\(timeout\)|OCP_ERR_PLUGIN_TIMEOUT/g)?.length ?? 0;
    tail = text.slice(cut);
  });
  const lines: { line: string; at: number }[] = [];
  let pending = "";
  let wake: (() => void) | undefined;
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk: string) => {
    pending += chunk;
    for (let newline = pending.indexOf("\n"); newline !== -1; newline = pending.indexOf("\n")) {
      lines.push({ line: pending.slice(0, newline), at: performance.now() });
      pending = pending.slice(newline + 1);
    }
    wake?.();
  });
  const pid = child.pid as number;
  let withChildren = 0;
  let mostRg = 0;
  const sampler = setInterval(() => {
    let total = memory(pid, "VmRSS");
    const running = children(pid);
    for (const rg of running) total += memory(rg, "VmRSS");
    withChildren = Math.max(withChildren, total);
    mostRg = Math.max(mostRg, running.length);
  }, 20);
  let read = 0;
  let stopped: Promise<void> | undefined;
  return {
    child,
    async replies(count) {
      while (lines.length < read + count) {
        if (child.exitCode !== null) throw new Error(`provider exited (${child.exitCode}) after ${lines.length} lines`);
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      }
      const taken = lines.slice(read, read + count);
      read += count;
      return taken;
    },
    peaks: () => ({ provider: memory(pid, "VmHWM"), withChildren, rg: mostRg }),
    timeoutsLogged: () => timeoutsLogged,
    stop() {
      stopped ??= (async () => {
        clearInterval(sampler);
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = new Promise((resolve) => child.once("exit", resolve));
        child.stdin.end(`${JSON.stringify({ type: "shutdown" })}\n`);
        await exited;
      })();
      return stopped;
    },
  };
}

async function handshake(provider: Provider): Promise<void> {
  provider.child.stdin.write(`${JSON.stringify({ type: "handshake", protocol_version: "ocp/1.0-draft" })}\n`);
  const [ack] = await provider.replies(1);
  if (!ack?.line.includes('"handshake_ack"')) throw new Error(`no handshake_ack: ${ack?.line}`);
}

/** What each goal gets when asked alone, one after another: the answers pipelined replies are held to. */
async function answersAlone(root: string): Promise<{ alone: string[]; perQueryMs: number }> {
  const provider = start(root);
  try {
    await handshake(provider);
    const alone: string[] = [];
    for (const goal of GOALS) {
      provider.child.stdin.write(`${query(goal)}\n`);
      const [reply] = await provider.replies(1);
      const message = JSON.parse(reply?.line ?? "null");
      if (message?.type !== "frames" || message.result.frames.length === 0) {
        throw new Error(`'${goal}' alone: ${reply?.line.slice(0, 300)}`);
      }
      alone.push(JSON.stringify(message.result));
    }
    if (new Set(alone).size !== GOALS.length) throw new Error("two goals get the same answer: order would not show");
    // The baseline: the same queries one at a time, each written once the previous reply is in.
    const began = performance.now();
    for (let i = 0; i < SEQUENTIAL; i++) {
      provider.child.stdin.write(`${query(GOALS[i % GOALS.length] as string)}\n`);
      await provider.replies(1);
    }
    return { alone, perQueryMs: (performance.now() - began) / SEQUENTIAL };
  } finally {
    await provider.stop();
  }
}

interface LoadRun {
  readonly queries: number;
  readonly frames: number;
  readonly busy: number;
  /** Error replies saying "timed out". */
  readonly timeouts: number;
  /** Searches stopped at their timeout (cut short), from the provider's stderr. */
  readonly cutByTimeout: number;
  readonly other: number;
  /** Replies out of place or unlike the query's answer alone. */
  readonly wrong: number;
  readonly firstReplyMs: number;
  readonly allRepliesMs: number;
  /** When the last frames reply arrived. */
  readonly lastFramesMs: number;
  readonly rssMb: number;
  readonly rssWithRgMb: number;
  /** The most rg children seen at once (sampled). */
  readonly mostRg: number;
}

/** Writes `count` queries in one go into a fresh provider and reads every reply. */
async function pipelined(
  root: string,
  count: number,
  alone: readonly string[],
  args: readonly string[] = [],
): Promise<LoadRun> {
  const provider = start(root, args);
  try {
    await handshake(provider);
    // Warm: the tokenizer tables loaded and rg found, as in a provider that has been serving.
    provider.child.stdin.write(`${query(GOALS[0] as string)}\n`);
    await provider.replies(1);
    const lines: string[] = [];
    for (let i = 0; i < count; i++) lines.push(query(GOALS[i % GOALS.length] as string));
    const began = performance.now();
    provider.child.stdin.write(`${lines.join("\n")}\n`);
    const replies = await provider.replies(count);
    let frames = 0;
    let busy = 0;
    let timeouts = 0;
    let other = 0;
    let wrong = 0;
    let lastFrames = began;
    replies.forEach(({ line, at }, i) => {
      const message = JSON.parse(line) as { type: string; message?: string; result?: unknown };
      if (message.type === "frames") {
        frames++;
        lastFrames = at;
        if (JSON.stringify(message.result) !== alone[i % alone.length]) wrong++;
      } else if (message.type === "error" && message.message?.startsWith("OCP_ERR_BUSY:")) busy++;
      else if (message.type === "error" && /timed out|timeout/i.test(message.message ?? "")) timeouts++;
      else other++;
    });
    const peaks = provider.peaks();
    // The stderr lines about the last searches may still be on their way: stop first.
    await provider.stop();
    return {
      queries: count,
      frames,
      busy,
      timeouts,
      cutByTimeout: provider.timeoutsLogged(),
      other,
      wrong,
      firstReplyMs: (replies[0]?.at ?? began) - began,
      allRepliesMs: (replies.at(-1)?.at ?? began) - began,
      lastFramesMs: lastFrames - began,
      rssMb: peaks.provider,
      rssWithRgMb: peaks.withChildren,
      mostRg: peaks.rg,
    };
  } finally {
    await provider.stop();
  }
}

function row(name: string, run: LoadRun): BenchRow {
  return {
    run: name,
    answered: `${run.frames + run.busy + run.timeouts + run.other} / ${run.queries}`,
    frames: run.frames,
    OCP_ERR_BUSY: run.busy,
    timeouts: `${run.timeouts} + ${run.cutByTimeout} cut short`,
    "out of order or cut short": run.wrong,
    "first reply": formatMs(run.firstReplyMs),
    "all replies": formatMs(run.allRepliesMs),
    "served/s": formatRate(run.frames / Math.max(0.001, run.lastFramesMs / 1000)),
    "peak RSS provider": `${run.rssMb.toFixed(0)} MB`,
    "peak RSS + rg": `${run.rssWithRgMb.toFixed(0)} MB`,
    "most rg at once": run.mostRg,
  };
}

function verdicts(name: string, run: LoadRun): Verdict[] {
  return [
    checkVerdict(
      `${name}: every query answered, in order, each frames reply what its query gets alone`,
      run.frames + run.busy + run.timeouts + run.other === run.queries && run.wrong === 0 && run.other === 0,
      `${run.frames} frames, ${run.busy} busy, ${run.other} other errors, ${run.wrong} out of order or cut short`,
    ),
    checkVerdict(
      `${name}: no timeout at the default timeout`,
      run.timeouts === 0 && run.cutByTimeout === 0,
      `${run.timeouts} timeout replies, ${run.cutByTimeout} searches stopped at their timeout`,
    ),
    checkVerdict(
      `${name}: never more than ${DEFAULTS.maxConcurrentSearches} rg at once`,
      run.mostRg <= DEFAULTS.maxConcurrentSearches,
      `at most ${run.mostRg} seen (sampled every 20 ms)`,
    ),
    checkVerdict(
      `${name}: provider RSS under ${RSS_TARGET_MB} MB`,
      run.rssMb < RSS_TARGET_MB,
      `peak ${run.rssMb.toFixed(0)} MB (VmHWM); with its rg children ${run.rssWithRgMb.toFixed(0)} MB (sampled)`,
    ),
  ];
}

/** Pipelines 1,000 and 10,000 queries into the real ocp-ripgrep and checks every reply. */
export async function run(): Promise<BenchReport> {
  const corpus = await snapshot();
  let runs: { alone: string[]; perQueryMs: number; thousand: LoadRun; tenThousand: LoadRun; roomy: LoadRun };
  try {
    const { alone, perQueryMs } = await answersAlone(corpus.root);
    runs = {
      alone,
      perQueryMs,
      thousand: await pipelined(corpus.root, 1000, alone),
      tenThousand: await pipelined(corpus.root, 10_000, alone),
      roomy: await pipelined(corpus.root, 1000, alone, ["--max-queued", "1000", "--queue-timeout", "600000"]),
    };
  } finally {
    rmSync(corpus.root, { recursive: true, force: true });
  }
  const { perQueryMs, thousand, tenThousand, roomy } = runs;
  const sequentialRate = 1000 / perQueryMs;
  return {
    title:
      `ripgrep under load: pipelined queries into ocp-ripgrep, this repository's ${corpus.files} files ` +
      `(${(corpus.bytes / 1e6).toFixed(1)} MB), ${DEFAULTS.maxConcurrentSearches} searches at once, ${DEFAULTS.maxQueuedSearches} queued`,
    rows: [
      row("1,000 pipelined, defaults", thousand),
      row("10,000 pipelined, defaults", tenThousand),
      row("1,000 pipelined, queue for all", roomy),
      {
        run: `${SEQUENTIAL} one at a time (baseline)`,
        answered: `${SEQUENTIAL} / ${SEQUENTIAL}`,
        frames: SEQUENTIAL,
        OCP_ERR_BUSY: 0,
        timeouts: 0,
        "out of order or cut short": 0,
        "first reply": formatMs(perQueryMs),
        "all replies": formatMs(perQueryMs * SEQUENTIAL),
        "served/s": formatRate(sequentialRate),
        "peak RSS provider": "",
        "peak RSS + rg": "",
        "most rg at once": "",
      },
    ],
    verdicts: [
      ...verdicts("1,000 pipelined", thousand),
      ...verdicts("10,000 pipelined", tenThousand),
      ...verdicts("1,000 pipelined, queue for all", roomy),
      checkVerdict(
        "queue for all: every one of the 1,000 served with frames",
        roomy.frames === roomy.queries,
        `${roomy.frames} frames`,
      ),
    ],
    notes: [
      `Default options: ${DEFAULTS.maxConcurrentSearches} rg at once (the CPU count, at most 8), ${DEFAULTS.maxQueuedSearches} queued, queue timeout = timeout = ${DEFAULTS.timeoutMs} ms; max_tokens 4000, max_frames 8; ${GOALS.length} goals in turn.`,
      "answered: replies received; frames replies are compared with each goal's answer alone (out of order or cut short would differ).",
      "OCP_ERR_BUSY: refused without searching, at once past the queue or after waiting the queue timeout; written in its turn.",
      "served/s: frames replies per second until the last of them (the baseline: one at a time); not judged.",
      "peak RSS provider: the kernel's high-water mark (VmHWM); + rg: the provider and its rg children, sampled every 20 ms.",
    ],
  };
}
