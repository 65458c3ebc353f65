/**
 * runConformance(): the judge. Runs every check against one provider and returns
 * a typed report; the provider is conformant iff every check passed or was skipped
 * and the frame checks had frames to judge.
 */

import { describeError } from "../provider/errors.js";
import { createTokenCounter } from "../tokens/counter.js";
import { TRANSPORTS } from "../transports/table.js";
import type { ConformanceTarget } from "../transports/targets.js";
import { CHECKS } from "./checks/index.js";
import { appliesTo, type CheckContext } from "./checks/shared/check.js";
import { allFrames } from "./checks/shared/frames.js";
import { DEFAULT_GOALS, MainSession } from "./checks/shared/main-session.js";
import { MessageLog } from "./schema.js";
import type { Emit, TransportSuite } from "./suite.js";
import {
  CHECK_NAMES,
  type CheckName,
  type CheckResult,
  type ConformanceOptions,
  type ConformanceReport,
  type Verdict,
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
  const emit: Emit = (check) => {
    results.set(check.name, check);
    options.onCheck?.(check);
  };
  // The transport table's row: its suite, loaded now (checking stdio loads no HTTP client).
  const suite = (await TRANSPORTS[target.transport].conformance()) as TransportSuite;
  const settings = {
    goals: options.goals !== undefined && options.goals.length > 0 ? options.goals : DEFAULT_GOALS,
    handshakeTimeoutMs: options.handshakeTimeoutMs ?? 10_000,
    queryTimeoutMs: options.queryTimeoutMs ?? 30_000,
  };
  counter.preload();
  const ctx: CheckContext = {
    target,
    log,
    counter,
    ...settings,
    main: new MainSession(suite.open(target, "main session", log), {
      ...settings,
      log,
      ...(options.negotiate === true ? { negotiate: counter.tokenizer } : {}),
    }),
    open: (label) => suite.open(target, label, log),
  };
  for (const check of CHECKS) {
    if (!appliesTo(check, target.transport))
      emit({ name: check.name, status: "skip", evidence: check.elsewhere ?? "" });
  }
  const applicable = CHECKS.filter((check) => appliesTo(check, target.transport));
  let provider: ConformanceReport["provider"];
  let negotiated: string | undefined;
  let broke = "the check did not run";
  try {
    await suite.run(
      applicable.filter((check) => check.uses !== "whole-run"),
      ctx,
      emit,
    );
    const handshake = await ctx.main.handshake();
    provider = handshake.ack?.provider;
    negotiated = handshake.negotiated;
  } catch (error) {
    // A bug of ours must not pass for a verdict: whatever did not run fails, saying why.
    broke = `the suite failed before this check: ${describeError(error)}`;
  }
  // Judged on everything the provider sent, so after every other check, even when the suite broke.
  for (const check of applicable.filter((c) => c.uses === "whole-run"))
    emit({ name: check.name, ...(await check.run(ctx)) });
  const checks = CHECK_NAMES.map((name): CheckResult => results.get(name) ?? { name, status: "fail", evidence: broke });
  const framesJudged = await framesOfMainSession(ctx.main);
  const verdict = judge(checks, framesJudged, options.allowNoFrames === true);
  return {
    target: describeTarget(target),
    transport: target.transport,
    tokenizer: counter.tokenizer,
    ...(negotiated !== undefined ? { negotiated } : {}),
    ...(provider !== undefined ? { provider } : {}),
    checks,
    framesJudged,
    verdict,
    conformant: verdict === "conformant",
    durationMs: Math.round(performance.now() - started),
  };
}

/** Frames in the main session's replies: what the frame checks judged (never sends a query). */
async function framesOfMainSession(main: MainSession): Promise<number> {
  const queries = await main.queriesSent()?.catch(() => undefined);
  return queries?.ran === true ? allFrames(queries.exchanges).length : 0;
}

/**
 * The verdict: a failure, or a check not run, is not conformant; otherwise a run whose
 * probes found no frame proved nothing about frames, budgets or costs, and is not verified
 * unless that is allowed.
 */
export function judge(checks: readonly CheckResult[], framesJudged: number, allowNoFrames: boolean): Verdict {
  if (!checks.every((check) => check.status === "pass" || check.status === "skip")) return "not-conformant";
  return framesJudged > 0 || allowNoFrames ? "conformant" : "not-verified";
}
