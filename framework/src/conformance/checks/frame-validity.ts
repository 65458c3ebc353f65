/** frame-validity (F1–F3): every score in [0, 1], every title and citation label non-empty. */
import {
  allFrames,
  countReplies,
  type Exchange,
  nameFrame,
  needFrames,
  noFrames,
  summarise,
  verdict,
} from "./shared/frames.js";
import { defineQueryCheck } from "./shared/query-check.js";

/** Judges every frame of every reply. */
export function frameValidity(exchanges: readonly Exchange[]) {
  const missing = needFrames(exchanges);
  if (missing) return missing;
  const frames = allFrames(exchanges);
  if (frames.length === 0) return noFrames(exchanges);
  const violations: string[] = [];
  for (const { frame, index } of frames) {
    const name = nameFrame(frame, index);
    const { score, title, citation_label: label } = frame;
    if (typeof score !== "number" || !(score >= 0 && score <= 1)) {
      violations.push(`${name}: score ${JSON.stringify(score)} outside [0, 1] (F1)`);
    }
    if (typeof title !== "string" || title.trim() === "") {
      violations.push(`${name}: title ${JSON.stringify(title ?? null)} is empty (F2)`);
    }
    if (typeof label !== "string" || label.trim() === "") {
      violations.push(`${name}: citation_label ${JSON.stringify(label ?? null)} is empty or missing (F3)`);
    }
  }
  if (violations.length > 0) return verdict("fail", summarise(violations));
  return verdict(
    "pass",
    `${frames.length} frames in ${countReplies(exchanges)} replies: every score in [0, 1], every title and citation_label non-empty`,
  );
}

/** The frame-validity check. */
export const frameValidityCheck = defineQueryCheck({
  name: "frame-validity",
  appliesTo: "every",
  judge: (run) => frameValidity(run.exchanges),
});
