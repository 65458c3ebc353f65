/**
 * The goals the main session probes with. The frame checks judge frames, so a suite
 * whose probes find none has verified nothing about budgets, costs or frames: the
 * first round asks the goals given (or generic ones); when it brings back few frames,
 * a second round asks goals built from what the first revealed — the titles of the
 * frames that did come back, the words of the provider's name — and then broad words
 * that most corpora hold (prose, code, notes, facts about teams and releases).
 */
import type { AckSummary } from "./main-session.js";

/** Probe goals when none are given: generic enough that most documentation matches one. */
export const DEFAULT_GOALS = ["how does it work", "error handling", "configuration options", "example usage"];

/**
 * Frames the best probe should bring back before the suite stops looking: enough that
 * the tight budgets (256 … 0 tokens) and max_frames 1 leave some out.
 */
export const ENOUGH_FRAMES = 3;

/** Second-round goals asked at most, so a provider that matches nothing costs a bounded number of queries. */
export const SECOND_ROUND_LIMIT = 6;

/**
 * Broad probes, last resort of the second round: one goal of words common in prose,
 * code and records (an engine that drops words it has never seen still matches the
 * rest), then single words, which a provider scoring by the share of goal words matched
 * ranks high.
 */
export const BROAD_GOALS = [
  "team name data file user service api error version release test build config time",
  "name",
  "data",
  "the",
];

/** Words in a provider's name that say nothing about its data. */
const NAME_NOISE = new Set(["ocp", "provider", "plugin", "server", "service", "mcp", "my", "the", "and"]);

/** Title text as a goal: one line, at most 80 characters. */
function titleGoal(title: string): string | undefined {
  const line = title.replace(/\s+/g, " ").trim();
  if (line === "") return undefined;
  return line.length <= 80 ? line : line.slice(0, 80).replace(/\s+\S*$/, "");
}

/**
 * The second round's goals, in the order to ask them: the titles of frames already
 * seen (best first), the provider's name in words, then {@link BROAD_GOALS}; none the
 * first round asked, none twice, at most {@link SECOND_ROUND_LIMIT}.
 */
export function secondRoundGoals(titles: readonly string[], ack: AckSummary, asked: readonly string[]): string[] {
  const goals: string[] = [];
  const seen = new Set(asked.map((goal) => goal.toLowerCase()));
  const add = (goal: string | undefined) => {
    if (goal === undefined || goal === "" || seen.has(goal.toLowerCase())) return;
    seen.add(goal.toLowerCase());
    goals.push(goal);
  };
  for (const title of titles.slice(0, 2)) add(titleGoal(title));
  const nameWords = (ack.provider?.name ?? "")
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word.length >= 3 && !NAME_NOISE.has(word.toLowerCase()));
  if (nameWords.length > 0) add(nameWords.join(" "));
  for (const goal of BROAD_GOALS) add(goal);
  return goals.slice(0, SECOND_ROUND_LIMIT);
}
