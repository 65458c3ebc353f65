/** http-oversized-body: a body far past any sane request gets 413, not a read to the end. */
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import type { HttpTarget } from "../../transports/targets.js";
import { defineCheck } from "./shared/check.js";
import { verdict } from "./shared/frames.js";

/** A body no provider should accept: 16 MiB, well past any sane request. */
const OVERSIZED_BYTES = 16 * 1024 * 1024;

/** The http-oversized-body check. */
export const httpOversizedBody = defineCheck({
  name: "http-oversized-body",
  appliesTo: ["http"],
  elsewhere: "HTTP only",
  uses: "own-session",
  run: async (ctx) => {
    if (ctx.target.transport !== "http") throw new Error(`an HTTP check was run over ${ctx.target.transport}`);
    const answer = await postOversized(ctx.target, OVERSIZED_BYTES, ctx.queryTimeoutMs);
    const size = `a ${OVERSIZED_BYTES / 1024 / 1024} MiB body`;
    if ("error" in answer) return verdict("fail", `${size} got no HTTP response: ${answer.error}`);
    if (answer.text.trim() !== "")
      ctx.log.record(`oversized-body response (HTTP ${answer.status})`, answer.text.trim());
    if (answer.status !== 413) return verdict("fail", `${size} got HTTP ${answer.status}, not 413`);
    return verdict("pass", `${size} got HTTP 413`);
  },
});

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
