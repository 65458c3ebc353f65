/**
 * The stdio suite. One main session answers the handshake and the query checks;
 * the checks that could leave a provider broken or gone — version-mismatch,
 * malformed-input-tolerance, garbage, eof-exit, shutdown-clean — each get a fresh
 * process, so one failure never decides another check. Sessions run a few at a
 * time, each bounded by its own timeouts, and every process group is killed at the end.
 *
 * A provider that never answers a handshake (it cannot start, dies at once, or stays
 * silent) fails `handshake` with the reason, once; every other check is `not-run`, and
 * the sessions not yet started are not started.
 */

import { clip } from "../host/clip.js";
import { describeError } from "../provider/errors.js";
import { PROTOCOL_VERSION } from "../wire/version.js";
import { handshakeVerdict, type SuiteContext, type SuiteOutcome } from "./handshake.js";
import { runQueryChecks } from "./query-checks.js";
import { describeExit, type Reply, StdioSession } from "./session.js";
import type { CheckResult, StdioTarget } from "./types.js";

const HANDSHAKE = { type: "handshake", protocol_version: PROTOCOL_VERSION };
/** How long a provider has to exit after EOF or `shutdown` (R2). */
const EXIT_LIMIT_MS = 2000;
const QUERY_CHECKS = [
  "frame-validity",
  "budget-honesty",
  "cost-honesty",
  "kinds-filter",
  "max-frames",
  "unknown-fields",
  "pipelining",
] as const;

/** The evidence of a check not run because the provider never answered a handshake. */
const NEVER_STARTED = "not run: the provider never answered a handshake (see handshake)";

/** What the main session's handshake showed, for the checks on other sessions. */
class Startup {
  /** Set once the main session's handshake got no reply at all. */
  failed = false;
  readonly #decided: Promise<boolean>;
  #decide: (failed: boolean) => void = () => {};

  constructor() {
    this.#decided = new Promise((resolve) => {
      this.#decide = resolve;
    });
  }

  /** Records whether the main session's handshake went unanswered. */
  settle(failed: boolean): void {
    this.failed ||= failed;
    this.#decide(failed);
  }

  /** Resolves with whether the provider never answered the main session's handshake. */
  decided(): Promise<boolean> {
    return this.#decided;
  }
}

/** Runs every stdio check against `target`. */
export async function runStdioSuite(target: StdioTarget, context: SuiteContext): Promise<SuiteOutcome> {
  const outcome: SuiteOutcome = {};
  const startup = new Startup();
  const fresh = (label: string) => () => new StdioSession(target, label, context.log);
  const tasks: (() => Promise<void>)[] = [
    async () => {
      outcome.provider = await mainSession(fresh("main session")(), context, startup);
    },
    () =>
      isolated(
        "version-mismatch",
        fresh("version-mismatch session"),
        (s) => versionMismatch(s, context),
        context,
        startup,
      ),
    () =>
      isolated(
        "malformed-input-tolerance",
        fresh("malformed-input session"),
        (s) => malformedInput(s, context),
        context,
        startup,
      ),
    () => isolated("garbage", fresh("garbage session"), (s) => garbage(s, context), context, startup),
    () => isolated("eof-exit", fresh("eof session"), (s) => exitCheck(s, "eof-exit", context), context, startup),
    () =>
      isolated(
        "shutdown-clean",
        fresh("shutdown session"),
        (s) => exitCheck(s, "shutdown-clean", context),
        context,
        startup,
      ),
  ];
  // Three at a time: fast on two cores without starving the provider under test.
  // Sessions are created inside the tasks, so no process starts before its turn.
  await pool(tasks, 3);
  for (const name of ["http-bad-json", "http-oversized-body"] as const) {
    context.emit({ name, status: "skip", evidence: "HTTP only" });
  }
  return outcome;
}

/** Runs tasks `width` at a time; all of them run to the end (no process outlives the run) before a failure is rethrown. */
async function pool(tasks: readonly (() => Promise<void>)[], width: number): Promise<void> {
  let next = 0;
  const failures: unknown[] = [];
  const worker = async () => {
    while (next < tasks.length) {
      try {
        await (tasks[next++] as () => Promise<void>)();
      } catch (error) {
        failures.push(error);
      }
    }
  };
  await Promise.all(Array.from({ length: width }, worker));
  if (failures.length > 0) throw failures[0];
}

/**
 * Runs one check on its own process; a bug in the check fails it rather than the whole
 * run. Once the provider is known never to answer a handshake, the process is not
 * started; and a session that got no reply at all, when the main session got none
 * either, reports the check not run rather than the same failure again.
 */
async function isolated(
  name: CheckResult["name"],
  open: () => StdioSession,
  check: (session: StdioSession) => Promise<CheckResult>,
  context: SuiteContext,
  startup: Startup,
): Promise<void> {
  if (startup.failed) {
    context.emit({ name, status: "not-run", evidence: NEVER_STARTED });
    return;
  }
  const session = open();
  try {
    const result = await check(session);
    const neverStarted = !session.replied && (await startup.decided());
    context.emit(neverStarted ? { name, status: "not-run", evidence: NEVER_STARTED } : result);
  } catch (error) {
    context.emit({ name, status: "fail", evidence: `the check itself failed: ${describeError(error)}` });
  } finally {
    await session.stop();
  }
}

async function mainSession(
  session: StdioSession,
  context: SuiteContext,
  startup: Startup,
): Promise<SuiteOutcome["provider"]> {
  try {
    const started = performance.now();
    const reply = await session.request(HANDSHAKE, "handshake", context.handshakeTimeoutMs);
    startup.settle(!reply.ok);
    const { check, ack } = handshakeVerdict(reply, performance.now() - started);
    context.emit(check);
    if (ack === undefined) {
      const evidence = reply.ok ? "not run: the handshake failed (see handshake)" : NEVER_STARTED;
      for (const name of QUERY_CHECKS) context.emit({ name, status: "not-run", evidence });
      return undefined;
    }
    for (const result of await runQueryChecks({ ...context, session, advertised: ack.kinds })) context.emit(result);
    return ack.provider;
  } finally {
    await session.stop();
  }
}

/** Handshakes on an isolated session; a failure explains why the check could not run. */
async function handshakeFirst(session: StdioSession, context: SuiteContext): Promise<string | undefined> {
  const reply = await session.request(HANDSHAKE, "handshake", context.handshakeTimeoutMs);
  if (reply.ok && reply.type === "handshake_ack") return undefined;
  return `not run: the handshake failed: ${reply.ok ? `answered '${reply.type}'` : reply.reason}`;
}

/** H3: a handshake in family ocp/2 gets a named `error` in time — no ack, no hang. */
async function versionMismatch(session: StdioSession, context: SuiteContext): Promise<CheckResult> {
  const name = "version-mismatch";
  const reply = await session.request(
    { type: "handshake", protocol_version: "ocp/2.0" },
    "handshake",
    context.handshakeTimeoutMs,
  );
  if (!reply.ok) return { name, status: "fail", evidence: `an ocp/2.0 handshake got no error (H3): ${reply.reason}` };
  if (reply.type === "error") {
    return {
      name,
      status: "pass",
      evidence: `an ocp/2.0 handshake got error: '${clip(String(reply.envelope.message), 160)}'`,
    };
  }
  const version = JSON.stringify(reply.envelope.protocol_version ?? null);
  return {
    name,
    status: "fail",
    evidence: `an ocp/2.0 handshake was answered with '${reply.type}' (protocol_version ${version}), not a named error (H3)`,
  };
}

/** R1: a malformed line and an invalid request each get an `error`, and the provider reads on. */
async function malformedInput(session: StdioSession, context: SuiteContext): Promise<CheckResult> {
  const name = "malformed-input-tolerance";
  const failedHandshake = await handshakeFirst(session, context);
  if (failedHandshake) return { name, status: "not-run", evidence: failedHandshake };
  const wait = Math.min(context.queryTimeoutMs, 5000);
  const inputs: [string, unknown][] = [
    ["a malformed JSON line", '{"type":"query","query":{"goal":"unterminated\n'],
    [
      "an invalid query (wrong types, unknown kind)",
      { type: "query", query: { goal: "", kinds: ["image"], anchors: "none", max_frames: -1, max_tokens: "many" } },
    ],
  ];
  const seen: string[] = [];
  for (const [what, input] of inputs) {
    const reply = await session.request(input, what, wait);
    const problem = expectError(reply, what, session);
    if (problem !== undefined) return { name, status: "fail", evidence: problem };
    seen.push(
      `${what} → error '${clip(String((reply as { envelope: { message?: unknown } }).envelope.message), 100)}'`,
    );
  }
  const alive = await session.request(HANDSHAKE, "handshake after bad input", context.handshakeTimeoutMs);
  if (!alive.ok)
    return { name, status: "fail", evidence: `after bad input the provider stopped answering: ${alive.reason}` };
  return { name, status: "pass", evidence: `${seen.join("; ")}; still answering afterwards` };
}

function expectError(reply: Reply, what: string, session: StdioSession): string | undefined {
  if (reply.ok && reply.type === "error") return undefined;
  if (reply.ok) return `${what} was answered with '${reply.type}', not an error (R1)`;
  if (session.exit !== undefined) return `${session.deadReason} — on ${what} (R1)`;
  return `no error reply to ${what} (R1: reply error instead): ${reply.reason}`;
}

/** Deterministic bytes with no newline: the same junk every run, so a failure reproduces. */
function junkBytes(length: number): Uint8Array {
  const bytes = new Uint8Array(length + 1);
  let state = 0x9e3779b9;
  for (let i = 0; i < length; i++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    const byte = state & 0xff;
    bytes[i] = byte === 0x0a ? 0x0b : byte;
  }
  bytes[length] = 0x0a;
  return bytes;
}

/** Garbage of every kind, each named for the evidence (built on use: one item is a megabyte). */
const garbageItems = (): [string, string | Uint8Array][] => [
  ["random bytes", junkBytes(512)],
  ["a 1 MiB junk line", `{"type":"query","query":{"goal":"${"x".repeat(1024 * 1024)}\n`],
  ["partial JSON", '\n\r\n   \n{"type":"query","query":{"goal":"partial\n'],
  [
    "wrong types",
    '{"type":"query","query":{"goal":42,"kinds":"doc","anchors":{},"max_frames":"ten","max_tokens":-5}}\n',
  ],
  ["an unknown type", '{"type":"subscribe","topics":["*"]}\n'],
  ["a JSON string", '"just a string"\n'],
  ["deeply nested JSON", `${"[".repeat(100_000)}${"]".repeat(100_000)}\n`],
];

/** The provider survives every kind of garbage and answers the next query. */
async function garbage(session: StdioSession, context: SuiteContext): Promise<CheckResult> {
  const name = "garbage";
  const failedHandshake = await handshakeFirst(session, context);
  if (failedHandshake) return { name, status: "not-run", evidence: failedHandshake };
  const wait = Math.min(context.queryTimeoutMs, 2000);
  const items = garbageItems();
  let errors = 0;
  for (const [what, junk] of items) {
    session.send(junk);
    const reply = await session.nextReply(wait);
    if (session.exit !== undefined) {
      return { name, status: "fail", evidence: `after ${what}: ${session.deadReason}` };
    }
    if (reply?.ok && reply.type === "error") errors += 1;
  }
  const goal = context.goals[0] ?? "how does it work";
  session.send({ type: "query", query: { goal, kinds: [], anchors: [], max_frames: 4, max_tokens: 2048 } });
  // Late error replies to the garbage may still be queued ahead of the answer.
  for (let i = 0; i <= items.length; i++) {
    const reply = await session.nextReply(context.queryTimeoutMs);
    if (reply === undefined) {
      const why = session.deadReason ?? `no reply within ${context.queryTimeoutMs} ms`;
      return {
        name,
        status: "fail",
        evidence: `after ${items.length} kinds of garbage, a query was not answered: ${why}`,
      };
    }
    if (reply.ok && reply.type === "frames") {
      const count = Array.isArray((reply.envelope.result as { frames?: unknown })?.frames)
        ? (reply.envelope.result as { frames: unknown[] }).frames.length
        : 0;
      return {
        name,
        status: "pass",
        evidence: `survived ${items.map(([what]) => what).join(", ")} (${errors} error replies), then answered a query with ${count} frames`,
      };
    }
  }
  return { name, status: "fail", evidence: "after the garbage, the query was answered with an error, not frames" };
}

/** eof-exit / shutdown-clean: the provider exits with code 0 within 2 s of EOF / `shutdown`. */
async function exitCheck(
  session: StdioSession,
  name: "eof-exit" | "shutdown-clean",
  context: SuiteContext,
): Promise<CheckResult> {
  const failedHandshake = await handshakeFirst(session, context);
  if (failedHandshake) return { name, status: "not-run", evidence: failedHandshake };
  const what = name === "eof-exit" ? "stdin closed" : "a shutdown envelope (stdin left open)";
  if (name === "eof-exit") session.closeInput();
  else session.send({ type: "shutdown" });
  const started = performance.now();
  const exit = await session.waitForExit(EXIT_LIMIT_MS);
  const elapsed = Math.round(performance.now() - started);
  if (exit === undefined) return { name, status: "fail", evidence: `still running ${EXIT_LIMIT_MS} ms after ${what}` };
  if (exit.code !== 0)
    return {
      name,
      status: "fail",
      evidence: `exited with ${describeExit(exit)} ${elapsed} ms after ${what}; a clean end is code 0`,
    };
  return { name, status: "pass", evidence: `exited with code 0, ${elapsed} ms after ${what}` };
}
