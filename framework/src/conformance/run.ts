/**
 * runConformance(): the judge. Runs every check against one provider and returns
 * a typed report; the provider is conformant iff every check passed or was skipped.
 */

import { describeError } from "../provider/errors.js";
import { createTokenCounter } from "../tokens/counter.js";
import type { SuiteContext, SuiteOutcome } from "./handshake.js";
import { runHttpSuite } from "./http-checks.js";
import { DEFAULT_GOALS } from "./query-checks.js";
import { MessageLog } from "./schema.js";
import { runStdioSuite } from "./stdio-checks.js";
import {
  CHECK_NAMES,
  type CheckName,
  type CheckResult,
  type ConformanceOptions,
  type ConformanceReport,
  type ConformanceTarget,
} from "./types.js";

/** The command line or URL of a target, as the report names it. */
export function describeTarget(target: ConformanceTarget): string {
  if (target.transport === "http") return new URL(target.url).href;
  return [target.command, ...(target.args ?? [])]
    .map((arg) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", "'\\''")}'`))
    .join(" ");
}

/**
 * Checks `target` against ocp/1.0-draft. Never throws for anything the provider
 * does — a crash, a hang, garbage on stdout all become failed checks with
 * evidence — and leaves no process behind. Throws only for a bad `options.tokenizer`.
 * (A check that cannot run for a bug of the suite's own fails too, saying so.)
 */
export async function runConformance(
  target: ConformanceTarget,
  options: ConformanceOptions = {},
): Promise<ConformanceReport> {
  const counter = createTokenCounter({ tokenizer: options.tokenizer });
  const started = performance.now();
  const log = new MessageLog();
  const results = new Map<CheckName, CheckResult>();
  const context: SuiteContext = {
    log,
    counter,
    goals: options.goals !== undefined && options.goals.length > 0 ? options.goals : DEFAULT_GOALS,
    handshakeTimeoutMs: options.handshakeTimeoutMs ?? 10_000,
    queryTimeoutMs: options.queryTimeoutMs ?? 30_000,
    emit: (check) => {
      results.set(check.name, check);
      options.onCheck?.(check);
    },
  };
  counter.preload();
  let outcome: SuiteOutcome = {};
  let broke = "the check did not run";
  try {
    outcome = target.transport === "stdio" ? await runStdioSuite(target, context) : await runHttpSuite(target, context);
  } catch (error) {
    // A bug of ours must not pass for a verdict: whatever did not run fails, saying why.
    broke = `the suite failed before this check: ${describeError(error)}`;
  }
  context.emit(log.verdict());
  const checks = CHECK_NAMES.map((name): CheckResult => results.get(name) ?? { name, status: "fail", evidence: broke });
  return {
    target: describeTarget(target),
    transport: target.transport,
    tokenizer: counter.tokenizer,
    ...(outcome.provider !== undefined ? { provider: outcome.provider } : {}),
    checks,
    conformant: checks.every((check) => check.status === "pass" || check.status === "skip"),
    durationMs: Math.round(performance.now() - started),
  };
}
