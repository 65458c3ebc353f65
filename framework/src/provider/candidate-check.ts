/**
 * Checking what plugins return. Every candidate is checked on every query, so the
 * check is hand-written and allocation-free; {@link CandidateSchema} states the same
 * rules in Zod, explains a failure in words, and a property test keeps the two equal.
 */
import { z } from "zod";
import { FRAME_KINDS, type FrameKind } from "../wire/schemas.js";
import type { Candidate } from "./plugin.js";

const RangeSchema = z
  .object({ start: z.int().min(1), end: z.int().min(1) })
  .refine((range) => range.end >= range.start, "range.end is before range.start");

/** `outer` holds every line of `inner` and at least one more. */
const holds = (outer: { start: number; end: number }, inner: { start: number; end: number }) =>
  outer.start <= inner.start && inner.end <= outer.end && (outer.start < inner.start || inner.end < outer.end);

/** The candidate shape as a Zod schema: the readable statement of the rules. */
export const CandidateSchema = z
  .object({
    content: z.string(),
    // Any JS number passes here, NaN and Infinity included: mapRelevance() names those precisely.
    relevance: z.custom<number>((value) => typeof value === "number", "relevance must be a number"),
    id: z.string().min(1).optional(),
    kind: z.enum(FRAME_KINDS).optional(),
    title: z.string().optional(),
    citationLabel: z.string().optional(),
    uri: z.string().min(1).optional(),
    path: z.string().min(1).optional(),
    range: RangeSchema.optional(),
    resolutions: z
      .array(
        z.object({
          content: z.string(),
          range: RangeSchema,
          relevance: z.custom<number>((value) => typeof value === "number", "relevance must be a number").optional(),
          id: z.string().min(1).optional(),
          title: z.string().optional(),
          citationLabel: z.string().optional(),
        }),
      )
      .optional(),
    pointerLine: z.int().min(1).optional(),
    provenance: z
      .array(
        z.object({
          type: z.string().min(1).optional(),
          uri: z.string().optional(),
          range: z.string().optional(),
          digest: z.string().optional(),
          method: z.string().optional(),
          by: z.string().optional(),
        }),
      )
      .optional(),
    validFrom: z.union([z.string(), z.date()]).optional(),
    validTo: z.union([z.string(), z.date()]).optional(),
    recordedAt: z.union([z.string(), z.date()]).optional(),
    relations: z
      .array(z.object({ rel: z.string().min(1), targetUri: z.string().min(1), displayName: z.string().optional() }))
      .optional(),
    embedding: z.object({ fingerprint: z.string().min(1), vector: z.array(z.number()).optional() }).optional(),
  })
  .superRefine((candidate, ctx) => {
    const { range, uri } = candidate;
    if (
      candidate.pointerLine !== undefined &&
      !(range && range.start <= candidate.pointerLine && candidate.pointerLine <= range.end)
    ) {
      ctx.addIssue({ code: "custom", path: ["pointerLine"], message: "pointerLine is not a line of range" });
    }
    const views = candidate.resolutions ?? [];
    if (views.length > 0 && (uri === undefined || range === undefined)) {
      ctx.addIssue({
        code: "custom",
        path: ["resolutions"],
        message: "resolutions need the candidate's uri and range",
      });
      return;
    }
    let inner = range;
    for (const [index, view] of views.entries()) {
      if (inner !== undefined && !holds(view.range, inner)) {
        ctx.addIssue({
          code: "custom",
          path: ["resolutions", index, "range"],
          message: `does not hold all of ${index === 0 ? "the candidate's range" : "the previous view's"} and more`,
        });
        return;
      }
      inner = view.range;
    }
  });

type Fields = Record<string, unknown>;

const isObject = (value: unknown): value is Fields =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const optionalString = (value: unknown) => value === undefined || typeof value === "string";
const optionalWord = (value: unknown) => value === undefined || (typeof value === "string" && value.length > 0);
const optionalTime = (value: unknown) =>
  value === undefined || typeof value === "string" || (value instanceof Date && !Number.isNaN(value.getTime()));
const lineNumber = (value: unknown) => Number.isSafeInteger(value) && (value as number) >= 1;
const finite = (value: unknown) => typeof value === "number" && Number.isFinite(value);
const rangeOk = (range: unknown): range is { start: number; end: number } =>
  isObject(range) &&
  lineNumber(range.start) &&
  lineNumber(range.end) &&
  (range.end as number) >= (range.start as number);

function provenanceOk(entry: unknown): boolean {
  return (
    isObject(entry) &&
    optionalWord(entry.type) &&
    optionalString(entry.uri) &&
    optionalString(entry.range) &&
    optionalString(entry.digest) &&
    optionalString(entry.method) &&
    optionalString(entry.by)
  );
}

function relationOk(entry: unknown): boolean {
  return (
    isObject(entry) &&
    typeof entry.rel === "string" &&
    entry.rel.length > 0 &&
    typeof entry.targetUri === "string" &&
    entry.targetUri.length > 0 &&
    optionalString(entry.displayName)
  );
}

/** Views of a located candidate, each holding the one before (the first, the candidate's range). */
function resolutionsOk(views: unknown, uri: unknown, range: { start: number; end: number } | undefined): boolean {
  if (!Array.isArray(views)) return false;
  if (views.length === 0) return true;
  let inner = range;
  for (const view of views) {
    if (!isObject(view) || typeof view.content !== "string" || !rangeOk(view.range)) return false;
    if (view.relevance !== undefined && typeof view.relevance !== "number") return false;
    if (!optionalWord(view.id) || !optionalString(view.title) || !optionalString(view.citationLabel)) return false;
  }
  if (uri === undefined || inner === undefined) return false;
  for (const view of views as { range: { start: number; end: number } }[]) {
    if (!holds(view.range, inner)) return false;
    inner = view.range;
  }
  return true;
}

/** True iff `raw` is a valid candidate: exactly the rules of {@link CandidateSchema}, checked fast. */
export function isCandidate(raw: unknown): raw is Candidate {
  if (!isObject(raw) || typeof raw.content !== "string" || typeof raw.relevance !== "number") return false;
  if (!optionalWord(raw.id) || !optionalWord(raw.uri) || !optionalWord(raw.path)) return false;
  if (!optionalString(raw.title) || !optionalString(raw.citationLabel)) return false;
  if (raw.kind !== undefined && !FRAME_KINDS.includes(raw.kind as FrameKind)) return false;
  const range = raw.range;
  if (range !== undefined && !rangeOk(range)) return false;
  if (raw.pointerLine !== undefined) {
    if (!lineNumber(raw.pointerLine) || range === undefined) return false;
    if ((raw.pointerLine as number) < range.start || (raw.pointerLine as number) > range.end) return false;
  }
  if (raw.resolutions !== undefined && !resolutionsOk(raw.resolutions, raw.uri, range)) return false;
  if (raw.provenance !== undefined && !(Array.isArray(raw.provenance) && raw.provenance.every(provenanceOk)))
    return false;
  if (!optionalTime(raw.validFrom) || !optionalTime(raw.validTo) || !optionalTime(raw.recordedAt)) return false;
  if (raw.relations !== undefined && !(Array.isArray(raw.relations) && raw.relations.every(relationOk))) return false;
  const embedding = raw.embedding;
  if (embedding !== undefined) {
    if (!isObject(embedding) || typeof embedding.fingerprint !== "string" || embedding.fingerprint.length === 0) {
      return false;
    }
    if (embedding.vector !== undefined && !(Array.isArray(embedding.vector) && embedding.vector.every(finite))) {
      return false;
    }
  }
  return true;
}

/** Why `raw` is not a valid candidate ("range: range.end is before range.start"), or undefined if it is. */
export function candidateProblem(raw: unknown): string | undefined {
  if (isCandidate(raw)) return undefined;
  const parsed = CandidateSchema.safeParse(raw);
  if (parsed.success) return "invalid candidate";
  const issue = parsed.error.issues[0];
  return `${issue?.path.join(".") || "candidate"}: ${issue?.message ?? "invalid"}`;
}
