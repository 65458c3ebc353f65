/**
 * Labelled cases, for corpora without a git history to mine (docs, search indexes): a
 * JSONL file, one `{ "goal": "…", "gold": ["docs/x.md#L10-40", …] }` per line.
 */
import { readFileSync } from "node:fs";
import { ERROR_CODES, OcpError } from "../provider/errors.js";
import type { EvalCase } from "./mine.js";
import { heldOut } from "./rules.js";

/**
 * Reads a cases file. Blank lines and lines starting with `//` are skipped; any other
 * line that is not `{ goal: non-empty string, gold: non-empty string[] }` is an error
 * naming its line, so a typo never silently shrinks the benchmark.
 */
export function readLabelledCases(file: string): EvalCase[] {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new OcpError(ERROR_CODES.EVAL, `cannot read the cases file '${file}': ${(error as Error).message}`);
  }
  const cases: EvalCase[] = [];
  const goals = new Set<string>();
  text.split("\n").forEach((raw, index) => {
    const line = raw.trim();
    if (line === "" || line.startsWith("//")) return;
    const where = `${file}:${index + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw new OcpError(ERROR_CODES.EVAL, `${where}: not JSON (${(error as Error).message})`);
    }
    const { goal, gold } = (value ?? {}) as { goal?: unknown; gold?: unknown };
    if (typeof goal !== "string" || goal.trim() === "") {
      throw new OcpError(ERROR_CODES.EVAL, `${where}: "goal" must be a non-empty string`);
    }
    if (!Array.isArray(gold) || gold.length === 0 || !gold.every((g) => typeof g === "string" && g !== "")) {
      throw new OcpError(ERROR_CODES.EVAL, `${where}: "gold" must be a non-empty list of paths or URIs`);
    }
    if (goals.has(goal)) throw new OcpError(ERROR_CODES.EVAL, `${where}: the goal is already a case above`);
    goals.add(goal);
    cases.push({ id: `case-${cases.length + 1}`, goal, gold: [...new Set(gold as string[])], heldOut: heldOut(goal) });
  });
  if (cases.length === 0) throw new OcpError(ERROR_CODES.EVAL, `the cases file '${file}' holds no case`);
  return cases;
}
