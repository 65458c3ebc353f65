/**
 * The smallest plugins shipped — the README's provider, the blank template's notes and the
 * plugin template (rendered as `create-ocp-provider generate plugin` writes it) — bound their work per goal as the docs ask (docs/writing-a-provider.md, "CPU time"):
 * the first 32 words of a goal decide, whatever follows, so a pasted file costs what a
 * question does.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { generatePlugin } from "create-ocp-provider";
import fc from "fast-check";
import { defineProvider, type Plugin, type Provider } from "ocp-provider";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import hello from "../../examples/hello-provider.js";
import { notes } from "../../templates/blank/src/plugins/notes.js";

// Rendered inside this repository (a hidden folder, removed after), so that it resolves ocp-provider.
const rendered = mkdtempSync(join(fileURLToPath(new URL(".", import.meta.url)), ".rendered-plugin-"));
let generated: Provider;
beforeAll(async () => {
  await generatePlugin({ name: "team-notes", project: rendered, kind: "memory", provider: false });
  const module = (await import(join(rendered, "src/plugins/team-notes.ts"))) as { teamNotes(): Plugin };
  generated = defineProvider({
    name: "generated",
    version: "1.0.0",
    dataFlow: { reads: true, writes: false, egress: false },
    plugins: [module.teamNotes()],
  });
});
afterAll(() => rmSync(rendered, { recursive: true, force: true }));

const blank = defineProvider({
  name: "blank",
  version: "1.0.0",
  dataFlow: { reads: true, writes: false, egress: false },
  plugins: [notes()],
});

const ask = (provider: Provider, goal: string) =>
  provider.query({ goal, kinds: [], anchors: [], max_tokens: 1000, max_frames: 5 });

/** Words of four letters or more, the notes' and items' own among them, so that some goals match. */
const word = fc.oneof(
  fc.constantFrom("deploys", "release", "branch", "retries", "back", "exponentially", "rotation", "mondays"),
  fc.constantFrom("example", "item", "replace", "knows", "team"), // the plugin template's one item
  fc.stringMatching(/^[a-z]{4,9}$/),
);
/** A goal whose first 32 words are distinct, then anything at all. */
const longGoal = fc
  .tuple(fc.uniqueArray(word, { minLength: 32, maxLength: 40 }), fc.array(word, { maxLength: 2000, size: "max" }))
  .map(([head, tail]) => ({ head: head.slice(0, 32).join(" "), tail: tail.join(" ") }));

describe.each([
  ["the README's provider", () => hello],
  ["the blank template's notes plugin", () => blank],
  ["the plugin template", () => generated],
])("%s", (_name, providerOf) => {
  it("answers a goal as its first 32 words alone, whatever follows them", async () => {
    const provider = providerOf();
    await fc.assert(
      fc.asyncProperty(longGoal, async ({ head, tail }) => {
        expect(await ask(provider, `${head} ${tail}`)).toEqual(await ask(provider, head));
      }),
      { numRuns: 40 },
    );
  });
});
