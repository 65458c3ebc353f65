/** kinds-filter: frames only of the kinds asked for, and only of kinds the handshake advertised. */
import {
  allFrames,
  type Exchange,
  framesOf,
  nameFrame,
  noFrames,
  summarise,
  verdict,
  whyNotFrames,
} from "./shared/frames.js";
import { defineQueryCheck } from "./shared/query-check.js";

/** Judges the kind of every frame against its query and the advertised kinds. */
export function kindsFilter(exchanges: readonly Exchange[], advertised: readonly string[]) {
  const probes = exchanges.filter((e) => e.purpose === "kinds" || e.purpose === "kinds-unadvertised");
  const answered = probes.filter(
    (e) => framesOf(e.reply) !== undefined || (e.reply.ok && e.purpose === "kinds-unadvertised"),
  );
  if (answered.length === 0) {
    const why = probes[0] === undefined ? "no kinds were probed (the handshake failed)" : whyNotFrames(probes[0].reply);
    return verdict("fail", `no kinds probe was answered: ${why}`);
  }
  if (allFrames(exchanges).length === 0) return noFrames(exchanges);
  const violations: string[] = [];
  for (const exchange of exchanges) {
    const frames = framesOf(exchange.reply) ?? [];
    frames.forEach((frame, index) => {
      const kind = String(frame.kind);
      if (exchange.query.kinds.length > 0 && !exchange.query.kinds.includes(kind)) {
        violations.push(
          `asked for kinds [${exchange.query.kinds.join(", ")}]: ${nameFrame(frame, index)} has kind '${kind}'`,
        );
      } else if (advertised.length > 0 && !advertised.includes(kind)) {
        violations.push(`${nameFrame(frame, index)} has kind '${kind}', which the handshake_ack does not advertise`);
      }
    });
  }
  if (violations.length > 0) return verdict("fail", summarise(violations));
  const seen = probes.map((e) => {
    const frames = framesOf(e.reply);
    const asked = `${e.query.kinds.join(", ")}${e.purpose === "kinds-unadvertised" ? " (not advertised)" : ""}`;
    return frames === undefined ? `${asked} → error` : `${asked} → ${frames.length} frames`;
  });
  return verdict("pass", `only the kinds asked for came back: ${seen.join("; ")}`);
}

/** The kinds-filter check. */
export const kindsFilterCheck = defineQueryCheck({
  name: "kinds-filter",
  appliesTo: "every",
  judge: (run) => kindsFilter(run.exchanges, run.advertised),
});
