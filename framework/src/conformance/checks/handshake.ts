/**
 * handshake (H1, H2): the main session's handshake gets a `handshake_ack` in our
 * major family with a non-empty provider name and version.
 */
import { clip } from "../../host/clip.js";
import { majorFamily, PROTOCOL_VERSION, versionsCompatible } from "../../wire/version.js";
import { type CheckVerdict, defineCheck } from "./shared/check.js";
import type { MainHandshake } from "./shared/main-session.js";

const nonEmpty = (value: unknown): value is string => typeof value === "string" && value.trim() !== "";

/** Judges the reply to the main session's handshake. */
export function handshakeVerdict({ reply, elapsedMs }: MainHandshake): CheckVerdict {
  if (!reply.ok) return { status: "fail", evidence: reply.reason };
  if (reply.type !== "handshake_ack") {
    const detail = reply.type === "error" ? `: '${clip(String(reply.envelope.message), 160)}'` : "";
    return { status: "fail", evidence: `answered the handshake with '${reply.type}'${detail} (H1)` };
  }
  const envelope = reply.envelope as {
    protocol_version?: unknown;
    provider?: { name?: unknown; version?: unknown; data_flow?: { egress?: unknown } };
    capabilities?: { query?: { kinds?: unknown } };
  };
  const rawKinds = envelope.capabilities?.query?.kinds;
  const kinds = Array.isArray(rawKinds) ? rawKinds.filter((kind): kind is string => typeof kind === "string") : [];
  const provider = envelope.provider;
  const version = envelope.protocol_version;
  const problems: string[] = [];
  if (typeof version !== "string" || !versionsCompatible(version, PROTOCOL_VERSION)) {
    problems.push(
      `acked with protocol_version ${JSON.stringify(version ?? null)}, outside the host's family ${majorFamily(PROTOCOL_VERSION)} (H1)`,
    );
  }
  if (!nonEmpty(provider?.name)) problems.push(`provider.name ${JSON.stringify(provider?.name ?? null)} is empty (H2)`);
  if (!nonEmpty(provider?.version))
    problems.push(`provider.version ${JSON.stringify(provider?.version ?? null)} is empty (H2)`);
  if (problems.length > 0) return { status: "fail", evidence: problems.join("; ") };
  const egress = provider?.data_flow?.egress === true ? "declares egress" : "no egress";
  return {
    status: "pass",
    evidence: `${provider?.name} ${provider?.version} acked ${String(version)} in ${Math.round(elapsedMs)} ms (kinds: ${kinds.join(", ") || "none"}; ${egress})`,
  };
}

/** The handshake check. */
export const handshake = defineCheck({
  name: "handshake",
  appliesTo: "every",
  uses: "main-session",
  run: async (ctx) => handshakeVerdict(await ctx.main.handshake()),
});
