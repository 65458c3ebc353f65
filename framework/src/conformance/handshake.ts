/**
 * The handshake check (H1, H2), shared by both suites, and what a suite is given
 * and gives back.
 */

import { clip } from "../host/clip.js";
import type { TokenCounter } from "../tokens/counter.js";
import type { ProviderInfo } from "../wire/schemas.js";
import { majorFamily, PROTOCOL_VERSION, versionsCompatible } from "../wire/version.js";
import type { MessageLog } from "./schema.js";
import type { Reply } from "./session.js";
import type { CheckResult } from "./types.js";

/** What a suite runs with. */
export interface SuiteContext {
  readonly log: MessageLog;
  readonly counter: TokenCounter;
  readonly goals: readonly string[];
  readonly handshakeTimeoutMs: number;
  readonly queryTimeoutMs: number;
  /** Records a check result. */
  readonly emit: (check: CheckResult) => void;
}

/** What a suite learned besides its checks. */
export interface SuiteOutcome {
  provider?: ProviderInfo;
}

/** The parts of an ack the other checks need. */
export interface AckSummary {
  readonly provider: ProviderInfo | undefined;
  readonly kinds: string[];
}

const nonEmpty = (value: unknown): value is string => typeof value === "string" && value.trim() !== "";

/**
 * Judges the reply to our handshake: a `handshake_ack` in our major family with a
 * non-empty provider name and version. `ack` is set whenever an ack came back at
 * all — even a failing one — so the query checks can still run against it.
 */
export function handshakeVerdict(reply: Reply, elapsedMs: number): { check: CheckResult; ack?: AckSummary } {
  const name = "handshake";
  if (!reply.ok) return { check: { name, status: "fail", evidence: reply.reason } };
  if (reply.type !== "handshake_ack") {
    const detail = reply.type === "error" ? `: '${clip(String(reply.envelope.message), 160)}'` : "";
    return { check: { name, status: "fail", evidence: `answered the handshake with '${reply.type}'${detail} (H1)` } };
  }
  const envelope = reply.envelope as {
    protocol_version?: unknown;
    provider?: { name?: unknown; version?: unknown; data_flow?: { egress?: unknown } };
    capabilities?: { query?: { kinds?: unknown } };
  };
  const rawKinds = envelope.capabilities?.query?.kinds;
  const kinds = Array.isArray(rawKinds) ? rawKinds.filter((kind): kind is string => typeof kind === "string") : [];
  const provider = envelope.provider;
  const info =
    nonEmpty(provider?.name) && nonEmpty(provider?.version)
      ? ({ name: provider.name, version: provider.version, data_flow: provider.data_flow } as ProviderInfo)
      : undefined;
  const ack: AckSummary = { provider: info, kinds };
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
  if (problems.length > 0) return { check: { name, status: "fail", evidence: problems.join("; ") }, ack };
  const egress = provider?.data_flow?.egress === true ? "declares egress" : "no egress";
  return {
    check: {
      name,
      status: "pass",
      evidence: `${provider?.name} ${provider?.version} acked ${String(version)} in ${Math.round(elapsedMs)} ms (kinds: ${kinds.join(", ") || "none"}; ${egress})`,
    },
    ack,
  };
}
