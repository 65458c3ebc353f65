/**
 * Larger views and pointers, end to end through a provider: the frames they become are
 * valid under the reference schema and honest — content, token_cost, digest, range and
 * citation all describe the lines that ship.
 */
import { describe, expect, it } from "vitest";
import { assertReferenceValid } from "../../../test/test-support/reference-schema.js";
import { sliceLines } from "../pack/lines.js";
import type { ContextFrame } from "../wire/schemas.js";
import { ERROR_CODES } from "./errors.js";
import { contentDigest } from "./frames.js";
import { type Logger, silentLogger } from "./logger.js";
import { type Candidate, definePlugin } from "./plugin.js";
import { defineProvider } from "./provider.js";

const text = Array.from({ length: 60 }, (_, k) => `  step(${k}); // line ${k + 1} of the retry loop\n`).join("");
const uri = (name: string) => `file:///repo/src/${name}.ts`;

/** The top region (lines 20-24 of retry.ts) with its function and its file, and 15 others scoring well below it. */
function candidates(topCitation?: string): Candidate[] {
  const top: Candidate = {
    id: "top",
    content: sliceLines(text, 20, 24),
    relevance: 0.9,
    uri: uri("retry"),
    range: { start: 20, end: 24 },
    pointerLine: 22,
    ...(topCitation === undefined ? {} : { citationLabel: topCitation }),
    resolutions: [
      { content: sliceLines(text, 10, 40), range: { start: 10, end: 40 }, relevance: 0.8 },
      { content: text, range: { start: 1, end: 60 }, id: "retry-file", title: "all of retry.ts" },
    ],
  };
  const others = Array.from(
    { length: 15 },
    (_, i): Candidate => ({
      id: `other-${i}`,
      content: sliceLines(text, 30, 36),
      relevance: 0.5 - i / 1000,
      uri: uri(`other-${i}`),
      range: { start: 30, end: 36 },
      pointerLine: 33,
      title: `other ${i}: the loop`,
    }),
  );
  return [top, ...others];
}

function provider(found: () => Candidate[], logger: Logger = silentLogger, scoreStep?: number) {
  return defineProvider({
    name: "views",
    version: "1.0.0",
    dataFlow: { reads: true, writes: false, egress: false },
    root: "/repo",
    logger,
    plugins: [definePlugin({ name: "plug", kinds: ["snippet"], search: found })],
    ...(scoreStep === undefined ? {} : { scoreStep }),
  });
}

const ask = (max_tokens: number) => ({ goal: "retry loop", kinds: [], anchors: [], max_frames: 20, max_tokens });

/** Room for the top's function and the others' pointers, not for its whole file. */
function functionBudget(counter: { count(text: string): number }): number {
  const budget = counter.count(sliceLines(text, 10, 40)) + 15 * counter.count(sliceLines(text, 33, 33));
  expect(counter.count(text)).toBeGreaterThan(budget - 15 * counter.count(sliceLines(text, 33, 33)));
  return budget;
}

/** Every frame holds exactly the lines it cites, and says what it costs. */
function expectHonest(frames: readonly ContextFrame[], counter: { count(text: string): number }) {
  for (const frame of frames) {
    expect(frame.token_cost).toBe(counter.count(frame.content));
    const provenance = frame.provenance[0];
    expect(provenance?.digest).toBe(contentDigest(frame.content));
    const [, start, end] = /^L(\d+)(?:-(\d+))?$/.exec(provenance?.range ?? "") ?? [];
    expect(start).toBeDefined();
    expect(frame.content).toBe(sliceLines(text, Number(start), Number(end ?? start)));
    expect(frame.citation_label?.endsWith(` ${provenance?.range}`)).toBe(true);
  }
}

describe("larger views and pointers, as frames", () => {
  it("ship the top region's function and the others as one-line pointers, all valid and honest", async () => {
    const views = provider(() => candidates());
    const result = await views.query(ask(functionBudget(views.counter)));
    assertReferenceValid({ type: "frames", result });
    expectHonest(result.frames, views.counter);
    const [top, ...rest] = result.frames;
    expect(top).toMatchObject({
      id: "plug:file:///repo/src/retry.ts#L10-40",
      score: 0.8,
      title: "src/retry.ts L10-40",
      citation_label: "src/retry.ts L10-40",
      provenance: [{ type: "file", uri: uri("retry"), range: "L10-40", method: "plug", by: "views" }],
    });
    expect(rest).toHaveLength(15);
    const pointers = rest.filter((frame) => frame.provenance[0]?.range === "L33");
    expect(pointers).toHaveLength(15);
    for (const pointer of pointers) {
      expect(pointer.content).toBe(sliceLines(text, 33, 33));
      expect(pointer.id).toMatch(/^plug:other-\d+$/);
      expect(pointer.title).toMatch(/^other \d+: the loop$/);
      expect(pointer.citation_label).toMatch(/^src\/other-\d+\.ts L33$/);
      expect(pointer.score).toBe(0.5 - Number(pointer.id.slice("plug:other-".length)) / 1000);
    }
    expect(result.truncated).toBe(true);
  });

  it("ship the whole file when the budget holds it, under the view's own id and title", async () => {
    const views = provider(() => candidates());
    const result = await views.query(ask(8192));
    assertReferenceValid({ type: "frames", result });
    expectHonest(result.frames, views.counter);
    expect(result.frames[0]).toMatchObject({
      id: "plug:retry-file",
      title: "all of retry.ts",
      citation_label: "src/retry.ts L1-60",
      score: 0.9,
    });
  });

  it("rewrite the range a plugin wrote at the end of the candidate's citation", async () => {
    const views = provider(() => candidates("retry.ts, the loop L20-24"));
    const result = await views.query(ask(functionBudget(views.counter)));
    expect(result.frames[0]?.citation_label).toBe("retry.ts, the loop L10-40");
  });

  it("a candidate whose views do not nest is dropped with a warning naming the view; the others ship", async () => {
    const warnings: string[] = [];
    const logger: Logger = { ...silentLogger, warn: (message) => warnings.push(message) };
    const [top, ...others] = candidates();
    const broken = { ...(top as Candidate), resolutions: [{ content: "x\n", range: { start: 21, end: 40 } }] };
    const result = await provider(() => [broken, ...others], logger).query(ask(1024));
    expect(result.frames.map((frame) => frame.id)).not.toContain("plug:top");
    expect(result.frames.length).toBeGreaterThan(5);
    expect(result.frames.every((frame) => frame.id.startsWith("plug:other-"))).toBe(true);
    expect(warnings.join("\n")).toMatch(/resolutions\.0\.range: does not hold all of the candidate's range/);
  });

  it("scoreStep sets how sure a score difference makes the packer: a large step flattens the odds", async () => {
    const views = provider(() => candidates());
    const sure = await views.query(ask(functionBudget(views.counter)));
    const unsure = await provider(() => candidates(), silentLogger, 10).query(ask(functionBudget(views.counter)));
    expect(sure.frames[0]?.provenance[0]?.range).toBe("L10-40");
    expect(unsure.frames[0]?.provenance[0]?.range).toBe("L20-24");
    expect(unsure.frames.filter((frame) => frame.provenance[0]?.range === "L30-36").length).toBeGreaterThan(
      sure.frames.filter((frame) => frame.provenance[0]?.range === "L30-36").length,
    );
    for (const scoreStep of [0, -1, Number.NaN, Number.POSITIVE_INFINITY, "0.1" as never]) {
      expect(() => provider(() => [], silentLogger, scoreStep), String(scoreStep)).toThrow(
        expect.objectContaining({ code: ERROR_CODES.PROVIDER_CONFIG, message: expect.stringMatching(/scoreStep/) }),
      );
    }
  });
});
