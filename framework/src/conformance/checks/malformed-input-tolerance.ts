/** malformed-input-tolerance (R1): a malformed line and an invalid request each get an `error`, and the provider reads on. */
import { clip } from "../../host/clip.js";
import type { StdioSession } from "../../transports/stdio/conformance-session.js";
import type { Reply } from "../session.js";
import { defineCheck } from "./shared/check.js";
import { verdict } from "./shared/frames.js";
import { HANDSHAKE } from "./shared/main-session.js";
import { handshakeFirst, openStdio } from "./shared/own-session.js";

function expectError(reply: Reply, what: string, session: StdioSession): string | undefined {
  if (reply.ok && reply.type === "error") return undefined;
  if (reply.ok) return `${what} was answered with '${reply.type}', not an error (R1)`;
  if (session.exit !== undefined) return `${session.deadReason} — on ${what} (R1)`;
  return `no error reply to ${what} (R1: reply error instead): ${reply.reason}`;
}

/** The malformed-input-tolerance check. */
export const malformedInputTolerance = defineCheck({
  name: "malformed-input-tolerance",
  appliesTo: ["stdio"],
  elsewhere: "stdio only: over HTTP a malformed body is http-bad-json",
  uses: "own-session",
  hazard: "may-crash",
  run: async (ctx) => {
    const session = openStdio(ctx, "malformed-input session");
    const failedHandshake = await handshakeFirst(session, ctx);
    if (failedHandshake) return verdict("not-run", failedHandshake);
    const wait = Math.min(ctx.queryTimeoutMs, 5000);
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
      if (problem !== undefined) return verdict("fail", problem);
      seen.push(
        `${what} → error '${clip(String((reply as { envelope: { message?: unknown } }).envelope.message), 100)}'`,
      );
    }
    const alive = await session.request(HANDSHAKE, "handshake after bad input", ctx.handshakeTimeoutMs);
    if (!alive.ok) return verdict("fail", `after bad input the provider stopped answering: ${alive.reason}`);
    return verdict("pass", `${seen.join("; ")}; still answering afterwards`);
  },
});
