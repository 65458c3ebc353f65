import { describe, expect, it } from "vitest";
import { definePlugin } from "../provider/plugin.js";
import { defineProvider, type Provider } from "../provider/provider.js";
import { runBench } from "./bench-run.js";

const NOTES = ["Deploys run from the release branch.", "Retries back off exponentially, from 100 ms."];

/** Every goal finds both notes: the best first, by shared words. */
function notesProvider(): Provider {
  const words = (text: string) => new Set(text.toLowerCase().match(/\w{4,}/g));
  return defineProvider({
    name: "notes",
    version: "1.0.0",
    dataFlow: { reads: true, writes: false, egress: false },
    plugins: [
      definePlugin({
        name: "notes",
        kinds: ["memory"],
        search: ({ goal }) =>
          NOTES.map((text, i) => ({
            id: `note-${i + 1}`,
            title: `Team note ${i + 1}`,
            content: text,
            relevance: 0.1 + [...words(goal)].filter((word) => words(text).has(word)).length / 10,
          })),
      }),
    ],
  });
}

const GOALS = ["how do retries back off?", "which branch do deploys run from?"];

describe("runBench", () => {
  it("loads the tokenizer before the first timed query and times it apart, so no query's counting holds it", async () => {
    const provider = notesProvider();
    const events: string[] = [];
    const counter = provider.counter as { preload(): void; count(text: string): number };
    const { preload, count } = counter;
    counter.preload = () => {
      events.push("preload");
      preload.call(counter);
    };
    counter.count = (text) => {
      events.push("count");
      return count.call(counter, text);
    };
    try {
      const report = await runBench(provider, { goals: GOALS, budget: 1024, maxFrames: 8, rounds: 1 });
      expect(events[0]).toBe("preload");
      expect(report.tokenizerLoadMs).toBeGreaterThanOrEqual(0);
    } finally {
      await provider.close();
    }
  });

  it("starts the rounds with an empty cache: drawing the goals (which asks the provider) does not make round one warm", async () => {
    const provider = notesProvider();
    try {
      const report = await runBench(provider, {
        seeds: ["deploys release branch"],
        budget: 1024,
        maxFrames: 8,
        rounds: 2,
      });
      expect(report.drawn).toBe(true);
      // Each note is counted once cold, in the first round; every later count of it is a hit.
      expect(report.cache.misses).toBe(NOTES.length);
      expect(report.cache.firstRound).toBeLessThan(1);
      expect(report.cache.later).toBe(1);
    } finally {
      await provider.close();
    }
  });

  it("counts the truncated answers that stopped at max_frames apart from those the budget stopped", async () => {
    const provider = notesProvider();
    try {
      const byFrames = await runBench(provider, { goals: GOALS, budget: 1024, maxFrames: 1, rounds: 2 });
      expect(byFrames.shipped).toMatchObject({ truncated: 4, truncatedAtMaxFrames: 4 });
      // 15 tokens hold one note, never both: the budget stops every answer, with a frame to spare.
      const byBudget = await runBench(provider, { goals: GOALS, budget: 15, maxFrames: 8, rounds: 2 });
      expect(byBudget.shipped).toMatchObject({ truncated: 4, truncatedAtMaxFrames: 0 });
    } finally {
      await provider.close();
    }
  });
});
