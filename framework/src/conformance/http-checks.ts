/**
 * The HTTP suite: the handshake, the query checks and version-mismatch as over
 * stdio, then HTTP's own: bad JSON gets a 4xx with an `error` envelope, an
 * oversized body gets 413, and `shutdown` is accepted. The wire-level stdio
 * checks (malformed lines, garbage, EOF, pipelining) are skipped, as in the reference.
 */
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { clip } from "../host/clip.js";
import { PROTOCOL_VERSION } from "../wire/version.js";
import { handshakeVerdict, type SuiteContext, type SuiteOutcome } from "./handshake.js";
import { HttpSession } from "./http-session.js";
import { runQueryChecks } from "./query-checks.js";
import type { CheckResult, HttpTarget } from "./types.js";

/** A body no provider should accept: 16 MiB, well past any sane request. */
const OVERSIZED_BYTES = 16 * 1024 * 1024;
/** The wire-level checks, skipped over HTTP as the reference does, and why. */
const STDIO_ONLY = {
  "malformed-input-tolerance": "stdio only: over HTTP a malformed body is http-bad-json",
  "eof-exit": "stdio only: an HTTP provider has no stdin to close",
  garbage: "stdio only: over HTTP a malformed body is http-bad-json",
} as const;

/** Runs every HTTP check against `target`. */
export async function runHttpSuite(target: HttpTarget, context: SuiteContext): Promise<SuiteOutcome> {
  const main = new HttpSession(target, "main session", context.log);
  const started = performance.now();
  const reply = await main.request(
    { type: "handshake", protocol_version: PROTOCOL_VERSION },
    "handshake",
    context.handshakeTimeoutMs,
  );
  const { check, ack } = handshakeVerdict(reply, performance.now() - started);
  context.emit(check);
  // No HTTP response at all: nothing listens there (or it died). Report that once.
  const unreachable = !reply.ok && reply.status === undefined;
  const notRun = unreachable
    ? "not run: the provider never answered a handshake (see handshake)"
    : "not run: the handshake failed (see handshake)";
  if (ack !== undefined) {
    for (const result of await runQueryChecks({ ...context, session: main, advertised: ack.kinds }))
      context.emit(result);
  } else {
    for (const name of [
      "frame-validity",
      "budget-honesty",
      "cost-honesty",
      "kinds-filter",
      "max-frames",
      "unknown-fields",
    ] as const) {
      context.emit({ name, status: "not-run", evidence: notRun });
    }
    context.emit({
      name: "pipelining",
      status: "skip",
      evidence: "stdio only: over HTTP each request has its own reply",
    });
  }
  if (unreachable) {
    for (const name of ["version-mismatch", "http-oversized-body", "shutdown-clean", "http-bad-json"] as const) {
      context.emit({ name, status: "not-run", evidence: notRun });
    }
  } else {
    context.emit(await versionMismatch(target, context));
    context.emit(await oversizedBody(target, context));
    context.emit(await shutdown(main, context));
    // Last: a provider that dies of bad JSON must not take the other checks down with it.
    context.emit(await badJson(target, context));
  }
  for (const [name, evidence] of Object.entries(STDIO_ONLY)) {
    context.emit({ name: name as keyof typeof STDIO_ONLY, status: "skip", evidence });
  }
  return { provider: ack?.provider };
}

async function versionMismatch(target: HttpTarget, context: SuiteContext): Promise<CheckResult> {
  const name = "version-mismatch";
  const session = new HttpSession(target, "version-mismatch request", context.log);
  const reply = await session.request(
    { type: "handshake", protocol_version: "ocp/2.0" },
    "handshake",
    context.handshakeTimeoutMs,
  );
  if (!reply.ok)
    return { name, status: "fail", evidence: `an ocp/2.0 handshake got no error envelope (H3): ${reply.reason}` };
  if (reply.type === "error") {
    return {
      name,
      status: "pass",
      evidence: `an ocp/2.0 handshake got HTTP ${reply.status} error: '${clip(String(reply.envelope.message), 160)}'`,
    };
  }
  return {
    name,
    status: "fail",
    evidence: `an ocp/2.0 handshake was answered with '${reply.type}' (HTTP ${reply.status}), not a named error (H3)`,
  };
}

async function badJson(target: HttpTarget, context: SuiteContext): Promise<CheckResult> {
  const name = "http-bad-json";
  const session = new HttpSession(target, "bad-JSON request", context.log);
  const reply = await session.post('{"type":"query","query":{"goal":', "bad JSON", context.queryTimeoutMs);
  const status = reply.status;
  if (status === undefined)
    return {
      name,
      status: "fail",
      evidence: `no response to a malformed JSON body: ${(reply as { reason: string }).reason}`,
    };
  if (status < 400 || status > 499) {
    return { name, status: "fail", evidence: `a malformed JSON body got HTTP ${status}; the host's mistake is a 4xx` };
  }
  if (!reply.ok || reply.type !== "error") {
    return { name, status: "fail", evidence: `a malformed JSON body got HTTP ${status} without an error envelope` };
  }
  return {
    name,
    status: "pass",
    evidence: `a malformed JSON body got HTTP ${status} with error '${clip(String(reply.envelope.message), 100)}'`,
  };
}

async function oversizedBody(target: HttpTarget, context: SuiteContext): Promise<CheckResult> {
  const name = "http-oversized-body";
  const answer = await postOversized(target, OVERSIZED_BYTES, context.queryTimeoutMs);
  const size = `a ${OVERSIZED_BYTES / 1024 / 1024} MiB body`;
  if ("error" in answer) return { name, status: "fail", evidence: `${size} got no HTTP response: ${answer.error}` };
  if (answer.text.trim() !== "")
    context.log.record(`oversized-body response (HTTP ${answer.status})`, answer.text.trim());
  if (answer.status !== 413) return { name, status: "fail", evidence: `${size} got HTTP ${answer.status}, not 413` };
  return { name, status: "pass", evidence: `${size} got HTTP 413` };
}

async function shutdown(main: HttpSession, context: SuiteContext): Promise<CheckResult> {
  const name = "shutdown-clean";
  const reply = await main.request({ type: "shutdown" }, "shutdown", context.queryTimeoutMs);
  const status = reply.status;
  if (status !== undefined && status >= 200 && status < 300) {
    return { name, status: "pass", evidence: `shutdown accepted with HTTP ${status}` };
  }
  const why = status !== undefined ? `HTTP ${status}` : (reply as { reason: string }).reason;
  return { name, status: "fail", evidence: `shutdown was not accepted: ${why}` };
}

/**
 * POSTs a valid query of `bytes` bytes, streaming it so a server may answer
 * before reading it all; its early answer is what counts, and the connection it
 * cuts afterwards is expected.
 */
function postOversized(
  target: HttpTarget,
  bytes: number,
  timeoutMs: number,
): Promise<{ status: number; text: string } | { error: string }> {
  const head = '{"type":"query","query":{"goal":"';
  const foot = '","kinds":[],"anchors":[],"max_frames":1,"max_tokens":1}}';
  const filler = bytes - head.length - foot.length;
  const url = new URL(target.url);
  const request = url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    let settled = false;
    const settle = (value: { status: number; text: string } | { error: string }) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      resolve(value);
    };
    const headers: Record<string, string | number> = { "content-type": "application/json", "content-length": bytes };
    if (target.token !== undefined) headers.authorization = `Bearer ${target.token}`;
    const req = request(url, { method: "POST", headers }, (response) => {
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => {
        if (text.length < 64 * 1024) text += chunk;
      });
      response.on("end", () => settle({ status: response.statusCode ?? 0, text }));
      response.on("error", () => settle({ status: response.statusCode ?? 0, text }));
    });
    const timer = setTimeout(() => settle({ error: `no response within ${timeoutMs} ms` }), timeoutMs);
    // A server may answer 413 and close while we are still writing: the write fails,
    // but its answer can still be on its way, so give it a moment before calling it an error.
    req.on("error", (error) => setTimeout(() => settle({ error: error.message }), 250));
    const chunk = Buffer.alloc(64 * 1024, "a");
    let sent = 0;
    // Headers first: a server that refuses by Content-Length answers before the body
    // starts, and its answer is read before a closed connection can fail our writes.
    const pump = () => {
      if (settled) return;
      if (sent === 0) req.write(head);
      while (sent < filler && !settled) {
        const piece = chunk.subarray(0, Math.min(chunk.length, filler - sent));
        sent += piece.length;
        if (!req.write(piece)) {
          req.once("drain", pump);
          return;
        }
      }
      if (!settled) req.end(foot);
    };
    req.flushHeaders();
    setTimeout(pump, 100);
  });
}
