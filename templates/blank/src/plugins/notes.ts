/**
 * An example plugin: search a few notes by the words they share with the goal.
 * Replace NOTES and search() with your own data — a database, an API, files on disk.
 *
 * A plugin returns candidates: content and how relevant it is (here in [0, 1]), plus
 * anything it knows — a title, a uri, a line range. It never computes token costs,
 * digests or citations: the framework does, and packs the best under the host's budget.
 */
import { definePlugin, type Plugin } from "ocp-provider";

const NOTES = [
  { id: "deploys", title: "Deploys", text: "Deploys run from the release branch, every weekday at 10:00." },
  { id: "retries", title: "Retries", text: "Retries back off exponentially, starting at 100 ms, at most five times." },
  {
    id: "on-call",
    title: "On-call",
    text: "The on-call rotation changes on Mondays; page the secondary after 15 minutes.",
  },
];

const words = (text: string) => new Set(text.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? []);

/**
 * The most distinct words of a goal compared, the first written. A search runs on the
 * provider's one thread: its work must stay bounded however long the goal (a pasted file),
 * or every other request waits for it (ocp-provider's guide, writing-a-provider.md: "CPU time").
 */
const MAX_GOAL_WORDS = 32;

/** A goal's distinct words of three letters or more: the first {@link MAX_GOAL_WORDS}. */
function goalWords(goal: string): Set<string> {
  const found = new Set<string>();
  for (const [word] of goal.toLowerCase().matchAll(/[\p{L}\p{N}]{3,}/gu)) {
    found.add(word);
    if (found.size === MAX_GOAL_WORDS) break;
  }
  return found;
}

/** The example plugin. */
export function notes(): Plugin {
  return definePlugin({
    name: "notes",
    kinds: ["memory"],
    search(query) {
      const wanted = goalWords(query.query_text ?? query.goal);
      if (wanted.size === 0) return [];
      return NOTES.flatMap((note) => {
        const have = words(`${note.title} ${note.text}`);
        const shared = [...wanted].filter((word) => have.has(word)).length;
        return shared === 0
          ? []
          : [{ id: note.id, title: note.title, content: note.text, relevance: shared / wanted.size }];
      });
    },
  });
}
