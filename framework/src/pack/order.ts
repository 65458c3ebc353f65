/** The packer's order of candidates: best first, never depending on input order. */
import type { PackCandidate } from "./types.js";

/** Best first: higher score, then smaller id; content, kind and the region's other fields break the ties dedup leaves. */
export function before(a: PackCandidate, b: PackCandidate): boolean {
  if (a.score !== b.score) return a.score > b.score;
  if (a.id !== b.id) return a.id < b.id;
  if (a.content !== b.content) return a.content < b.content;
  if (a.kind !== b.kind) return a.kind < b.kind;
  return regionKey(a) < regionKey(b);
}

/** Everything else the packer reads of a candidate, as one comparable string: only for exact ties. */
function regionKey(candidate: PackCandidate): string {
  const { uri, range, pointerLine, resolutions } = candidate;
  if (uri === undefined && range === undefined && pointerLine === undefined && resolutions === undefined) return "";
  return JSON.stringify([
    uri,
    range?.start,
    range?.end,
    pointerLine,
    resolutions?.map((r) => [r.id, r.score, r.range.start, r.range.end, r.content]),
  ]);
}
