/**
 * The checks every provider must pass whatever it serves, shared by the end-to-end
 * provider tests: frame validity (F1–F3), budget honesty with exact costs (B1),
 * malformed-input tolerance (R1) and clean shutdown (R2). Each test adds the checks
 * specific to its provider after these. Import it as a namespace:
 * `import * as check from "../test-support/provider-checks.js"`, then `check.shutdown(child, 2000)`.
 */
import { createTokenCounter } from "ocp-provider";
import { expect } from "vitest";
import { type Child, exitWithin } from "./child.js";
import { handshake, nextEnvelope, type postEnvelope } from "./envelopes.js";
import { assertReferenceValid } from "./reference-schema.js";

const counter = createTokenCounter();

/** The wire fields of a context frame that every provider's frames are checked on. */
export interface CheckedFrame {
  score: number;
  title: string;
  citation_label: string;
  content: string;
  token_cost: number;
}

/**
 * Checks a frames reply: at most `maxFrames` frames whose costs sum to at most
 * `maxTokens` (B1), each with a score in [0, 1] (F1), a non-empty title and citation
 * label (F2, F3), and a token_cost equal to the exact o200k_base count of its content.
 * Returns the frames for the provider's own checks.
 */
export function genericFrames<F extends CheckedFrame>(
  reply: { type: string; result: { frames: F[] } },
  maxTokens: number,
  maxFrames: number,
): F[] {
  expect(reply.type).toBe("frames");
  const { frames } = reply.result;
  expect(frames.length).toBeLessThanOrEqual(maxFrames);
  expect(frames.reduce((sum, frame) => sum + frame.token_cost, 0)).toBeLessThanOrEqual(maxTokens);
  for (const frame of frames) {
    expect(frame.score).toBeGreaterThanOrEqual(0);
    expect(frame.score).toBeLessThanOrEqual(1);
    expect(frame.title.trim()).not.toBe("");
    expect(frame.citation_label.trim()).not.toBe("");
    expect(frame.token_cost).toBe(counter.count(frame.content));
  }
  return frames;
}

/** Lines a host might send by mistake: broken JSON, binary, incomplete and unknown messages, a huge line. */
const GARBAGE = ["{", "\u0000\u0001binary", '{"type":"query"}', '{"type":"nope"}', "x".repeat(2_000_000)];

/** R1: sends each garbage line over stdio and expects an error envelope for each (waiting up to `timeoutMs`). */
export async function garbageAnsweredWithErrors(child: Child, timeoutMs?: number): Promise<void> {
  for (const junk of GARBAGE) {
    child.send(`${junk}\n`);
    expect((await nextEnvelope(child, timeoutMs)).type).toBe("error");
  }
}

/** Asks for `protocolVersion` and expects an error envelope naming it, never an ack; returns the reply. */
export async function versionMismatch(child: Child, protocolVersion: string, timeoutMs?: number) {
  const reply = await handshake(child, { protocolVersion, timeoutMs });
  expect(reply.type).toBe("error");
  expect(reply.message).toContain(protocolVersion);
  return reply;
}

/** R2: sends `shutdown`, expects exit 0 within `exitMs`, and that nothing but valid envelopes reached stdout. */
export async function shutdown(child: Child, exitMs: number): Promise<void> {
  child.send({ type: "shutdown" });
  expect((await exitWithin(child, exitMs)).code).toBe(0);
  for (const line of child.lines) assertReferenceValid(JSON.parse(line));
}

/** R2: closes the child's stdin and expects exit 0 within `exitMs`. */
export async function exitsOnEof(child: Child, exitMs: number): Promise<void> {
  child.process.stdin.end();
  expect((await exitWithin(child, exitMs)).code).toBe(0);
}

/** R2: sends SIGTERM and expects exit 0 within `exitMs`. */
export async function exitsOnSigterm(child: Child, exitMs: number): Promise<void> {
  child.process.kill("SIGTERM");
  expect((await exitWithin(child, exitMs)).code).toBe(0);
}

/**
 * Over HTTP, with `post` bound to the provider's URL (and any headers it needs): a
 * body that is not JSON gets 400, a foreign protocol version an error naming it, and
 * the provider then still answers the query `stillUp` with 200.
 */
export async function httpRejectsMalformed(
  post: (body: unknown) => ReturnType<typeof postEnvelope>,
  stillUp: unknown,
): Promise<void> {
  expect((await post("{not json")).status).toBe(400);
  expect((await post({ type: "handshake", protocol_version: "ocp/9.1" })).message.message).toContain("ocp/9.1");
  expect((await post(stillUp)).status).toBe(200);
}
