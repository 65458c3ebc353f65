/**
 * A search that computes for long on the provider's one thread: in-process code cannot be
 * pre-empted, so a synchronous search past its time limit is dropped and named on stderr,
 * and a search that awaits `ctx.checkpoint()` in its loops lets other work run and stops
 * at its time limit.
 */
import { describe, expect, it } from "vitest";
import type { ContextQuery } from "../wire/schemas.js";
import type { Logger } from "./logger.js";
import { definePlugin, type Plugin } from "./plugin.js";
import { defineProvider } from "./provider.js";

function recordingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const at = (level: string) => (message: string) => lines.push(`${level}: ${message}`);
  return { lines, error: at("error"), warn: at("warn"), info: at("info"), debug: at("debug") };
}

const query: ContextQuery = { goal: "find things", kinds: [], anchors: [], max_frames: 10, max_tokens: 1000 };

function provider(plugins: Plugin[]) {
  const logger = recordingLogger();
  const built = defineProvider({
    name: "test-provider",
    version: "1.0.0",
    dataFlow: { reads: true, writes: false, egress: false },
    plugins,
    logger,
  });
  return { provider: built, logger };
}

/** Holds the thread for `ms` milliseconds, as CPU-bound work does. */
function spin(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // nothing: the point is not to return to the event loop
  }
}

const good = definePlugin({
  name: "good",
  kinds: ["snippet"],
  search: () => [{ id: "1", content: "kept", relevance: 1 }],
});

describe("a search that holds the thread", () => {
  it("is dropped as timed out when it returns synchronously past its time limit, and said on stderr", async () => {
    const busy = definePlugin({
      name: "busy",
      kinds: ["snippet"],
      timeoutMs: 30,
      search: (_, ctx) => {
        while (Date.now() <= ctx.deadline + 5) spin(1); // past its deadline, never yielding
        return [{ id: "late", content: "too late", relevance: 1 }];
      },
    });
    const { provider: p, logger } = provider([busy, good]);
    const result = await p.query(query);
    expect(result.frames.map((frame) => frame.id)).toEqual(["good:1"]);
    expect(logger.lines.join("\n")).toMatch(
      /plugin 'busy': OCP_ERR_PLUGIN_TIMEOUT: search ran \d+ ms without letting the event loop run, past its time limit of 30 ms/,
    );
  });

  it("lets other work run at each ctx.checkpoint() and stops there at its time limit", async () => {
    let iterations = 0;
    const crunch = definePlugin({
      name: "crunch",
      kinds: ["snippet"],
      timeoutMs: 1000,
      async search({ goal }, ctx) {
        if (goal !== "crunch") return [];
        for (;;) {
          spin(2);
          iterations++;
          await ctx.checkpoint();
        }
      },
    });
    const { provider: p, logger } = provider([crunch, good]);
    const { provider: other } = provider([good]);
    // Both set up and warm (the first query loads the tokenizer, holding the thread itself).
    await p.query(query);
    await other.query(query);
    const order: string[] = [];
    const crunching = p.query({ ...query, goal: "crunch" }).then((result) => {
      order.push("crunch settled");
      return result;
    });
    // Started after the long search: a timer and another provider's query both get their turn during it.
    setTimeout(() => order.push("timer fired"), 20);
    const answered = other.query(query).then(() => order.push("other answered"));
    const result = await crunching;
    await answered;
    expect(order.indexOf("timer fired")).toBeLessThan(order.indexOf("crunch settled"));
    expect(order.indexOf("other answered")).toBeLessThan(order.indexOf("crunch settled"));
    // The long search timed out; the other plugin's frames ship.
    expect(result.frames.map((frame) => frame.id)).toEqual(["good:1"]);
    expect(logger.lines.join("\n")).toMatch(/plugin 'crunch': OCP_ERR_PLUGIN_TIMEOUT: search timed out after 1000 ms/);
    // Its loop ended at the checkpoint that found it stopped: no work after the answer.
    const atAnswer = iterations;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(iterations).toBe(atAnswer);
    expect(iterations).toBeGreaterThan(1);
  });

  it("never rejects unhandled: a checkpoint left unawaited after the search stopped does not crash the process", async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    try {
      let later: (() => Promise<void>) | undefined;
      const sloppy = definePlugin({
        name: "sloppy",
        kinds: ["snippet"],
        timeoutMs: 20,
        search: (_, ctx) => {
          later = ctx.checkpoint;
          return new Promise(() => {}); // never answers: times out
        },
      });
      const { provider: p } = provider([sloppy, good]);
      await p.query(query);
      later?.(); // not awaited, after the search was stopped
      spin(15);
      later?.();
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(unhandled).toEqual([]);
      await expect(later?.()).rejects.toThrow(/timed out after 20 ms/);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });

  it("stops a checkpointed search when the host goes away, and keeps checkpoint through a spread context", async () => {
    let ended: unknown;
    const crunch = definePlugin({
      name: "crunch",
      kinds: ["snippet"],
      async search(_, ctx) {
        const { checkpoint } = { ...ctx };
        try {
          for (;;) {
            spin(2);
            await checkpoint();
          }
        } catch (error) {
          ended = error;
          throw error;
        }
      },
    });
    const { provider: p } = provider([crunch]);
    const host = new AbortController();
    setTimeout(() => host.abort(new Error("host went away")), 30);
    await expect(p.query(query, { signal: host.signal })).rejects.toThrow();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(ended).toEqual(new Error("host went away"));
  });
});
