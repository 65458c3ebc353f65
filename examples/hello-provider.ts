import { definePlugin, defineProvider } from "ocp-provider";

const notes = ["Deploys run from the release branch.", "Retries back off exponentially, from 100 ms."];
// A text's first 32 words of four letters or more: a long goal costs no more than a question.
const words = (text: string) => new Set((text.toLowerCase().match(/\w{4,}/g) ?? []).slice(0, 32));

export default defineProvider({
  name: "team-notes",
  version: "1.0.0",
  dataFlow: { reads: true, writes: false, egress: false },
  plugins: [
    definePlugin({
      name: "notes",
      kinds: ["memory"],
      search: ({ goal }) =>
        notes.map((text, i) => ({
          id: `note-${i + 1}`,
          title: `Team note ${i + 1}`,
          content: text,
          relevance: [...words(goal)].filter((word) => words(text).has(word)).length / words(goal).size,
        })),
    }),
  ],
});
