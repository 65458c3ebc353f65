import { describe, expect, it } from "vitest";
import { renderReport } from "./render.js";
import { goldSpread } from "./spread.js";
import type { EvalReport, SideSummary, SummaryRow } from "./types.js";

/** A side at its widest: every figure with the most digits a real run prints. */
const side = (tokens: number, latencyMs: number): SideSummary => ({
  recall: 0.456,
  hit: 0.5,
  mrr: 0.44,
  ndcg: 0.3,
  hunkRecall: 0.333,
  acc1: 0.45,
  goldShare: 1,
  hunkShare: 0.2,
  tokens,
  latencyMs,
});

function report(fields: Partial<EvalReport> = {}): EvalReport {
  const budgets = [1024, 65_536];
  const summary: SummaryRow[] = [];
  for (const split of ["all", "tuned", "held-out"] as const) {
    for (const budget of budgets) {
      summary.push({
        split,
        budget,
        cases: 60,
        hunkCases: 60,
        ours: side(budget, 12_345),
        bm25: side(budget, 3),
        ratio: { recall: 12.34, hit: 1, mrr: 10.01, ndcg: 1, hunkRecall: 33.33, acc1: 10.5, goldShare: 11.11 },
        goldOverBudget: 60,
        errors: split === "all" ? 7 : 3,
      });
    }
  }
  return {
    tool: "ocp eval",
    provider: { command: "ocp-ripgrep --root {root}", name: "ripgrep", version: "0.1.0" },
    source: {
      kind: "git",
      repo: "../express",
      rev: "HEAD",
      head: "a".repeat(40),
      shallow: false,
      mining: {
        scanned: 442,
        qualifying: 60,
        skipped: {
          "changes no source file": 90,
          "message: filtered subject": 210,
          "adds or retypes a source file": 40,
          "changes more than 12 files": 42,
        },
      },
    },
    budgets,
    maxFrames: 10,
    runs: 1,
    tokenizer: "o200k_base",
    heldOutRule: "",
    cases: [],
    summary,
    spread: [],
    goldSpread: goldSpread(
      Array.from({ length: 60 }, (_, i) => ({ gold: [i < 26 ? "lib/response.js" : `lib/f${i % 6}.js`] })),
      10,
    ),
    elapsedMs: 300_000,
    ...fields,
  };
}

describe("renderReport", () => {
  it("fits 100 columns with the widest figures a run prints (two tables, Files and Lines)", () => {
    const text = renderReport(report());
    expect(text).toMatch(/^Files: /m);
    expect(text).toMatch(/^Lines: /m);
    for (const line of text.split("\n")) expect(line.length, line).toBeLessThanOrEqual(100);
  });

  it("says how many commits were looked at, then why each skipped one was skipped, most first", () => {
    const lines = renderReport(report()).split("\n");
    const at = lines.indexOf("442 commits looked at, 60 qualifying, 382 skipped:");
    expect(at).toBeGreaterThan(0);
    expect(lines.slice(at + 1, at + 5)).toEqual([
      "  210  message: filtered subject",
      "   90  changes no source file",
      "   42  changes more than 12 files",
      "   40  adds or retypes a source file",
    ]);
  });

  it("shows the gold's spread, and warns when it is narrow", () => {
    const text = renderReport(report());
    expect(text).toContain("Gold: 7 files over 60 cases; the commonest, lib/response.js, in 26 (43%).");
    expect(text).toContain(
      "Goal-blind answer (the 10 commonest gold files, whatever the goal): acc@1 0.43, file recall 1.00.",
    );
    expect(text).toMatch(/^WARNING: narrow gold/m);
    expect(text).toContain("  - one file, lib/response.js, is gold in 26 of 60 cases (43%)");
    const wide = goldSpread(
      Array.from({ length: 60 }, (_, i) => ({ gold: [`src/f${i % 30}.ts`] })),
      10,
    );
    const calm = renderReport(report({ goldSpread: wide }));
    expect(calm).toContain("Gold: 30 files over 60 cases; the commonest, src/f0.ts, in 2 (3%).");
    expect(calm).not.toMatch(/WARNING/);
  });

  it("shows a labelled gold entry's control and bidi characters as U+FFFD, never raw", () => {
    const hostile = goldSpread([{ gold: ["docs/\u202eevil\u001b[2J.md"] }], 10);
    const text = renderReport(report({ goldSpread: hostile }));
    expect(text).toContain("the commonest, docs/\ufffdevil\ufffd[2J.md, in 1 (100%).");
    expect(text.includes("\u001b") || text.includes("\u202e")).toBe(false);
  });

  it("counts failed queries under the tables, per budget", () => {
    expect(renderReport(report())).toContain(
      "14 of 120 queries failed (timeout, error reply or budget violation) and count as empty answers:\n" +
        "  7 at 1024 tokens, 7 at 65536 tokens",
    );
    const clean = report();
    const summary = clean.summary.map((row) => ({ ...row, errors: 0 }));
    expect(renderReport({ ...clean, summary })).not.toMatch(/failed/);
  });
});
