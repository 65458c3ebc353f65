/**
 * The smallest plugins shipped — the README's provider and the blank template's notes —
 * bound their work per goal as the docs ask (docs/writing-a-provider.md, "Bounded work"):
 * the first 32 words of a goal decide, whatever follows, so a pasted file costs what a
 * question does.
 */
import fc from "fast-check";
import { defineProvider, type Provider } from "ocp-provider";
import { describe, expect, it } from "vitest";
import hello from "../../examples/hello-provider.js";
import { notes } from "../../templates/blank/src/plugins/notes.js";

const blank = defineProvider({
  name: "blank",
  version: "1.0.0",
  dataFlow: { reads: true, writes: false, egress: false },
  plugins: [notes()],
});

const ask = (provider: Provider, goal: string) =>
  provider.query({ goal, kinds: [], anchors: [], max_tokens: 1000, max_frames: 5 });

/** Words of four letters or more, the notes' own among them, so that some goals match. */
const word = fc.oneof(
  fc.constantFrom("deploys", "release", "branch", "retries", "back", "exponentially", "rotation", "mondays"),
  fc.stringMatching(/^[a-z]{4,9}$/),
);
/** A goal whose first 32 words are distinct, then anything at all. */
const longGoal = fc
  .tuple(fc.uniqueArray(word, { minLength: 32, maxLength: 40 }), fc.array(word, { maxLength: 2000, size: "max" }))
  .map(([head, tail]) => ({ head: head.slice(0, 32).join(" "), tail: tail.join(" ") }));

describe.each([
  ["the README's provider", hello],
  ["the blank template's notes plugin", blank],
])("%s", (_name, provider) => {
  it("answers a goal as its first 32 words alone, whatever follows them", async () => {
    await fc.assert(
      fc.asyncProperty(longGoal, async ({ head, tail }) => {
        expect(await ask(provider, `${head} ${tail}`)).toEqual(await ask(provider, head));
      }),
      { numRuns: 40 },
    );
  });
});
