/**
 * The frame verdicts on hand-made exchanges: each passes an honest reply, fails
 * the one violation it owns with evidence naming it, ignores the others' violations,
 * and skips when there was nothing to check.
 */
import { describe, expect, it } from "vitest";
import { createTokenCounter } from "../../tokens/counter.js";
import type { Reply } from "../session.js";
import { budgetHonesty } from "./budget-honesty.js";
import { costHonesty } from "./cost-honesty.js";
import { frameValidity } from "./frame-validity.js";
import { kindsFilter } from "./kinds-filter.js";
import { maxFrames } from "./max-frames.js";
import type { Exchange, ProbeQuery } from "./shared/frames.js";

const counter = createTokenCounter();
const CONTENT = "Retry behavior is set in Config::retry; backoff doubles each attempt.";

function frame(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: "f",
    kind: "doc",
    title: "Retry policy",
    content: CONTENT,
    score: 0.9,
    token_cost: counter.count(CONTENT),
    provenance: [],
    citation_label: "retry.md L1-2",
    relations: [],
    ...overrides,
  };
}

const framesReply = (frames: Record<string, unknown>[]): Reply => ({
  ok: true,
  type: "frames",
  envelope: { type: "frames", result: { frames, truncated: false } },
});

function exchange(
  purpose: Exchange["purpose"],
  frames: Record<string, unknown>[],
  query: Partial<ProbeQuery> = {},
): Exchange {
  return {
    purpose,
    query: { goal: "retry", kinds: [], anchors: [], max_frames: 8, max_tokens: 4096, ...query },
    reply: framesReply(frames),
  };
}

/** A run where every probe got `frames`, with the query limits each probe asked for. */
const run = (frames: Record<string, unknown>[], tight = frames): Exchange[] => [
  exchange("probe", frames),
  exchange("budget", tight, { max_tokens: 20 }),
  exchange("kinds", frames, { kinds: ["doc"] }),
  exchange("kinds-unadvertised", [], { kinds: ["graph"] }),
  exchange("max-frames", frames.slice(0, 1), { max_frames: 1 }),
];

const honest = [frame(), frame({ id: "g", title: "Backoff" })];
const nothingFits: Record<string, unknown>[] = [];

describe("frame verdicts", () => {
  it("pass an honest run", () => {
    const exchanges = run(honest, nothingFits);
    expect(frameValidity(exchanges).status).toBe("pass");
    expect(budgetHonesty(exchanges).status).toBe("pass");
    expect(costHonesty(exchanges, counter).status).toBe("pass");
    expect(kindsFilter(exchanges, ["doc"]).status).toBe("pass");
    expect(maxFrames(exchanges).status).toBe("pass");
  });

  it("frame-validity names F1, F2 and F3 violations", () => {
    const bad = [
      frame({ score: 1.5 }),
      frame({ id: "x", title: "" }),
      frame({ title: "Backoff", citation_label: null }),
    ];
    const verdict = frameValidity(run(bad, []));
    expect(verdict.status).toBe("fail");
    expect(verdict.evidence).toBe(
      "frame 1 'Retry policy': score 1.5 outside [0, 1] (F1); frame 2 'id x': title \"\" is empty (F2); frame 3 'Backoff': citation_label null is empty or missing (F3)",
    );
  });

  it("budget-honesty fails a reply over its max_tokens, and only that", () => {
    const exchanges = run(honest);
    const verdict = budgetHonesty(exchanges);
    expect(verdict).toMatchObject({ status: "fail" });
    expect(verdict.evidence).toMatch(/^max_tokens 20: Σ token_cost \d+ over 2 frames \(B1\)$/);
    expect(frameValidity(exchanges).status).toBe("pass");
    expect(costHonesty(exchanges, counter).status).toBe("pass");
  });

  it("cost-honesty fails an under-reported cost with the tokenizer's count, and reports an over-report", () => {
    const count = counter.count(CONTENT);
    const under = costHonesty(run([frame(), frame({ id: "g", title: "Backoff", token_cost: 3 })], []), counter);
    expect(under.status).toBe("fail");
    expect(under.evidence).toBe(`frame 2 'Backoff': token_cost 3 < o200k_base count ${count}`);
    const over = costHonesty(run([frame({ token_cost: count + 5 })], []), counter);
    expect(over.status).toBe("pass");
    expect(over.evidence).toContain(
      `1 over-reported (frame 1 'Retry policy': token_cost ${count + 5} > o200k_base count ${count})`,
    );
    const canonical = costHonesty(run(honest, []), createTokenCounter({ tokenizer: "canonical" }));
    expect(canonical.evidence).toMatch(/token_cost \d+ < canonical count \d+/);
  });

  it("kinds-filter fails frames of kinds not asked for or not advertised", () => {
    const exchanges = run(honest, []);
    exchanges.push(exchange("kinds", [frame({ kind: "symbol", title: "RetryPolicy" })], { kinds: ["doc"] }));
    expect(kindsFilter(exchanges, ["doc"]).evidence).toBe(
      "asked for kinds [doc]: frame 1 'RetryPolicy' has kind 'symbol'",
    );
    const unadvertised = run([frame({ kind: "fact" })], []);
    unadvertised.splice(2, 1);
    expect(kindsFilter(unadvertised, ["doc"]).evidence).toMatch(
      /has kind 'fact', which the handshake_ack does not advertise/,
    );
  });

  it("max-frames fails a reply with more frames than asked", () => {
    const exchanges = run(honest, []);
    exchanges.push(exchange("max-frames", honest, { max_frames: 0 }));
    expect(maxFrames(exchanges)).toMatchObject({ status: "fail", evidence: "max_frames 0: 2 frames came back" });
  });

  it("skip when no frames came back at all, and fail when no query was answered", () => {
    expect(frameValidity(run([])).status).toBe("skip");
    expect(costHonesty(run([]), counter).evidence).toMatch(/^nothing to check: no frames came back for 'retry'/);
    const dead: Exchange[] = [
      {
        purpose: "probe",
        query: run([])[0]?.query as ProbeQuery,
        reply: { ok: false, reason: "the provider exited (code 1)" },
      },
    ];
    expect(frameValidity(dead)).toMatchObject({
      status: "fail",
      evidence: "no query was answered with frames: the provider exited (code 1)",
    });
  });
});
