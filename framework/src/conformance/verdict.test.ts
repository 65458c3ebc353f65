/**
 * The verdict cannot pass vacuously: a run with no failure but no frame judged is
 * not verified (unless allowed), and the second round of probes is built from what the
 * first revealed — titles, the provider's name — before broad words, bounded.
 */
import { describe, expect, it } from "vitest";
import { FRAME_CHECKS } from "./checks/index.js";
import { BROAD_GOALS, DEFAULT_GOALS, SECOND_ROUND_LIMIT, secondRoundGoals } from "./checks/shared/probe-goals.js";
import { judge } from "./run.js";
import { CHECK_NAMES, type CheckResult, type CheckStatus } from "./types.js";

/** Every check with `status`, but those named in `others`. */
function checks(status: CheckStatus, others: Partial<Record<string, CheckStatus>> = {}): CheckResult[] {
  return CHECK_NAMES.map((name) => ({ name, status: others[name] ?? status, evidence: "" }));
}

describe("judge", () => {
  const skippedFrameChecks = Object.fromEntries(FRAME_CHECKS.map((name) => [name, "skip" as const]));

  it("calls a run whose frame checks had no frames not verified, whatever else passed", () => {
    expect(judge(checks("pass", skippedFrameChecks), 0, false)).toBe("not-verified");
    expect(judge(checks("pass"), 0, false)).toBe("not-verified");
  });

  it("accepts it with allowNoFrames, and a run with frames without it", () => {
    expect(judge(checks("pass", skippedFrameChecks), 0, true)).toBe("conformant");
    expect(judge(checks("pass"), 12, false)).toBe("conformant");
  });

  it("never calls a failure or a check not run anything but not conformant", () => {
    for (const frames of [0, 5]) {
      for (const allow of [false, true]) {
        expect(judge(checks("pass", { "cost-honesty": "fail" }), frames, allow)).toBe("not-conformant");
        expect(judge(checks("not-run", { handshake: "fail" }), frames, allow)).toBe("not-conformant");
      }
    }
  });
});

describe("secondRoundGoals", () => {
  const ack = (name: string) => ({ provider: { name, version: "1", data_flow: {} } as never, kinds: [] });

  it("asks the titles seen first, then the provider's name in words, then broad words", () => {
    const goals = secondRoundGoals(["Retry policy", "Backoff", "Third"], ack("team-facts"), DEFAULT_GOALS);
    expect(goals.slice(0, 3)).toEqual(["Retry policy", "Backoff", "team facts"]);
    expect(goals.slice(3)).toEqual(BROAD_GOALS.slice(0, SECOND_ROUND_LIMIT - 3));
  });

  it("leaves out what was asked, words of a name that say nothing, and repeats", () => {
    const goals = secondRoundGoals(["error handling", "name"], ack("ocp-provider"), DEFAULT_GOALS);
    expect(goals).not.toContain("error handling");
    expect(goals.filter((goal) => goal === "name")).toHaveLength(1);
    expect(goals.some((goal) => /ocp|provider/.test(goal))).toBe(false);
  });

  it("asks at most SECOND_ROUND_LIMIT goals, a title as one line of at most 80 characters", () => {
    const long = `${"word ".repeat(40)}\nsecond line`;
    const goals = secondRoundGoals([long, "a\tb"], ack("x"), []);
    expect(goals.length).toBeLessThanOrEqual(SECOND_ROUND_LIMIT);
    expect(goals[0]).toMatch(/^(word ){15}word$/);
    expect(goals[1]).toBe("a b");
    for (const goal of goals) expect(goal).not.toContain("\n");
  });
});
