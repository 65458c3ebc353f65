/**
 * Per-query cost in-process: the stdio transport on injected streams, so a round trip
 * is the framework's own work (framing, envelope checks, fan-out, search, packing,
 * exact costs, digests, serialising) without a pipe, a kernel wake-up or a second
 * process. The stdio benchmark measures what a host sees; this one says how much of
 * it is the framework, with far less noise from a shared machine.
 *
 * - **bare**: what any stdio provider must do — parse the query line and write a
 *   prepared reply (the canned provider's own reply, so the bytes are the same).
 * - **canned**: `bench/canned-provider.ts` through the whole framework: its plugin
 *   returns the golden vector's two candidates without searching.
 * - **docs example**: `examples/docs-provider.ts`, its real search over README.md and docs/.
 *
 * Reported, not judged: the stdio benchmark carries the target.
 */
import { EventEmitter } from "node:events";
import type { Provider } from "ocp-provider";
import { serveStdio } from "ocp-provider/stdio";
import { type BenchReport, checkVerdict, measure, timing } from "./harness.js";

const HANDSHAKE = `${JSON.stringify({ type: "handshake", protocol_version: "ocp/1.0-draft" })}\n`;
const QUERY = `${JSON.stringify({
  type: "query",
  query: { goal: "how do I write a provider plugin?", max_frames: 2, max_tokens: 300 },
})}\n`;

/** A provider on in-memory streams: `request(line)` resolves to its reply line, as written (string or UTF-8 bytes). */
function inMemory(provider: Provider): (line: string) => Promise<string | Uint8Array> {
  const input = new EventEmitter();
  let waiting: ((line: string | Uint8Array) => void) | undefined;
  const output = {
    write(chunk: string | Uint8Array) {
      const resolve = waiting;
      waiting = undefined;
      resolve?.(chunk);
      return true;
    },
    once() {},
  };
  serveStdio(provider, { input, output });
  return (line) =>
    new Promise<string | Uint8Array>((resolve) => {
      waiting = resolve;
      input.emit("data", Buffer.from(line));
    });
}

/** Measures one query round trip in-process for the bare loop, the canned provider and the docs example. */
export async function run(): Promise<BenchReport> {
  const canned = inMemory((await import("./canned-provider.js")).default as Provider);
  const docs = inMemory((await import("../examples/docs-provider.js")).default as Provider);
  for (const request of [canned, docs]) await request(HANDSHAKE);
  const cannedReply = String(await canned(QUERY));
  const docsReply = String(await docs(QUERY));
  const bare = (line: string) => {
    // What the bare readline loop does per line: parse it, answer with a prepared line.
    const { type } = JSON.parse(line) as { type: string };
    return Promise.resolve(type === "query" ? cannedReply : "");
  };

  const tasks = [
    { name: "bare: parse + prepared reply", fn: () => bare(QUERY) },
    { name: "framework, canned plugin", fn: () => canned(QUERY) },
    { name: "framework, docs example", fn: () => docs(QUERY) },
  ];
  const results = await measure(tasks, { time: 3000, iterations: 20_000, warmupIterations: 5000, rounds: 4 });
  const base = timing(results, tasks[0]?.name as string);
  const answered = [cannedReply, docsReply].every((reply) => reply.startsWith('{"type":"frames"'));
  return {
    title: "query: one round trip in-process (stdio transport on injected streams)",
    rows: tasks.map((task) => {
      const measured = timing(results, task.name);
      return {
        path: task.name,
        "per query": `${(measured.meanMs * 1000).toFixed(2)} µs ±${measured.rme.toFixed(1)}%`,
        "over bare": `${((measured.meanMs - base.meanMs) * 1000).toFixed(2)} µs`,
      };
    }),
    verdicts: [
      checkVerdict(
        "both providers answer the query with frames",
        answered,
        answered ? `${cannedReply.length} and ${docsReply.length} characters` : docsReply.slice(0, 200),
      ),
    ],
    notes: [
      "each iteration is one query line in and one reply line out, through serveStdio() with the same framing, checks and writer as `ocp serve`.",
      "'over bare' is what every stdio round trip pays beyond a provider that does nothing; set it against the bare loop's round trip in the stdio benchmark to see the best ratio the framework could reach there.",
    ],
  };
}
