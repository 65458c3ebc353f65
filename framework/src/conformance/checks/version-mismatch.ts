/** version-mismatch (H3): a handshake in family ocp/2 gets a named `error` in time — no ack, no hang. */
import { clip } from "../../host/clip.js";
import { defineCheck } from "./shared/check.js";
import { verdict } from "./shared/frames.js";
import { openHttp, openStdio } from "./shared/own-session.js";

const FUTURE = { type: "handshake", protocol_version: "ocp/2.0" };

/** The version-mismatch check. */
export const versionMismatch = defineCheck({
  name: "version-mismatch",
  appliesTo: "every",
  uses: "own-session",
  // Its ocp/2.0 handshake must be the first: after an ocp/1 one, an error could mean "already handshaken".
  fresh: true,
  run: async (ctx) => {
    if (ctx.target.transport === "http") {
      const reply = await openHttp(ctx, "version-mismatch request").request(
        FUTURE,
        "handshake",
        ctx.handshakeTimeoutMs,
      );
      if (!reply.ok) return verdict("fail", `an ocp/2.0 handshake got no error envelope (H3): ${reply.reason}`);
      if (reply.type === "error") {
        return verdict(
          "pass",
          `an ocp/2.0 handshake got HTTP ${reply.status} error: '${clip(String(reply.envelope.message), 160)}'`,
        );
      }
      return verdict(
        "fail",
        `an ocp/2.0 handshake was answered with '${reply.type}' (HTTP ${reply.status}), not a named error (H3)`,
      );
    }
    const reply = await openStdio(ctx, "version-mismatch session").request(FUTURE, "handshake", ctx.handshakeTimeoutMs);
    if (!reply.ok) return verdict("fail", `an ocp/2.0 handshake got no error (H3): ${reply.reason}`);
    if (reply.type === "error") {
      return verdict("pass", `an ocp/2.0 handshake got error: '${clip(String(reply.envelope.message), 160)}'`);
    }
    const version = JSON.stringify(reply.envelope.protocol_version ?? null);
    return verdict(
      "fail",
      `an ocp/2.0 handshake was answered with '${reply.type}' (protocol_version ${version}), not a named error (H3)`,
    );
  },
});
