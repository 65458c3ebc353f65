/**
 * From candidates to frames that are valid by construction (F1–F3).
 *
 * - score: a plugin's relevance mapped into [0, 1] by its declared scale (see
 *   {@link mapRelevance}); NaN, infinite or negative relevance drops the candidate.
 * - title and citation_label: the plugin's, else derived from the path and line
 *   range ("src/config.ts L42-44"); a citation without a path is the title; a title
 *   without anything is the content's first line; never empty, and always one plain
 *   line: control, line-separator and bidi-control characters are cleaned out here,
 *   for every plugin (see {@link displayLine}), as are those of relations' display names.
 * - provenance: the first entry describes the shipped content and gets its exact
 *   `sha256:` digest and line range; every entry gets `by` (the provider's name).
 */
import { createHash } from "node:crypto";
import { isAbsolute, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { GenerationalCache, memoizeString } from "../cache/generational.js";
import type { LineRange } from "../pack/lines.js";
import type { PackedFrame, PackResolution } from "../pack/types.js";
import type { FrameField } from "../wire/frame-fields.js";
import type { ContextFrame, FrameKind, Provenance } from "../wire/schemas.js";
import { candidateProblem } from "./candidate-check.js";
import { displayLine } from "./display-text.js";
import type { Candidate, CandidateProvenance, Plugin, Resolution, ScoreScale } from "./plugin.js";

/** A checked candidate with its frame id, kind and score settled: what the packer sees. */
export interface PreparedCandidate {
  readonly id: string;
  readonly kind: FrameKind;
  readonly content: string;
  readonly score: number;
  readonly uri: string | undefined;
  readonly range: LineRange | undefined;
  readonly resolutions: readonly PreparedResolution[] | undefined;
  readonly pointerLine: number | undefined;
  /** The plugin's relevance (or a view's) was above 1 on the unit scale and became 1. */
  readonly clamped: boolean;
  readonly plugin: Plugin;
  readonly candidate: Candidate;
}

/** A candidate's larger view with its frame id and score settled. */
export interface PreparedResolution extends PackResolution {
  /** The view as the plugin gave it. */
  readonly resolution: Resolution;
}

/**
 * Maps a relevance into a score in [0, 1], or returns a reason it cannot.
 * `unit`: [0, 1] as is, above 1 clamped to 1. `unbounded`: r / (1 + r), which keeps order.
 */
export function mapRelevance(relevance: number, scale: ScoreScale): { score: number; clamped: boolean } | string {
  if (Number.isNaN(relevance)) return "relevance is NaN";
  if (relevance < 0) return `relevance ${relevance} is negative`;
  if (scale === "unbounded") {
    if (relevance === Number.POSITIVE_INFINITY) return "relevance is infinite";
    return { score: relevance / (1 + relevance), clamped: false };
  }
  return relevance > 1 ? { score: 1, clamped: true } : { score: relevance, clamped: false };
}

/** `sha256:<hex>` of a text's UTF-8 bytes: the digest a host can verify against the source. */
export function contentDigest(content: string): string {
  return `sha256:${createHash("sha256").update(content, "utf8").digest("hex")}`;
}

/** "L42-44", or "L42" for one line. */
export function formatRange(range: LineRange): string {
  return range.start === range.end ? `L${range.start}` : `L${range.start}-${range.end}`;
}

/** How a uri is shown to people: a `file:` uri relative to `root` when inside it, else as is. */
export function uriToDisplayPath(uri: string, root: string): string {
  if (!uri.startsWith("file:")) return uri;
  try {
    const absolute = fileURLToPath(uri);
    const rel = relative(root, absolute);
    const inside = rel !== "" && !rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel);
    return inside ? rel.split(sep).join("/") : absolute;
  } catch {
    return uri;
  }
}

/** What frame building needs to know of the provider, with the provider's own memos. */
export interface FrameContext {
  /** The provider's name: provenance `by`. */
  readonly name: string;
  /** Shows a uri to people (memoised, since uris repeat). */
  readonly displayPath: (uri: string) => string;
  /** {@link contentDigest}, memoised: the same content ships again and again (a hot section, a popular symbol). */
  readonly digest: (content: string) => string;
  /** Frame ids by plugin, then by the plugin's local id (see {@link frameId}). */
  readonly ids: WeakMap<Plugin, GenerationalCache<string, string>>;
  /** Ids derived from a uri and a line range, by plugin, by uri, then by a number made of the range. */
  readonly locatedIds: WeakMap<Plugin, GenerationalCache<string, Map<number, string>>>;
}

/** A frame context for a provider rooted at `root`: fresh memos, shared with no other provider. */
export function frameContext(name: string, root: string): FrameContext {
  return {
    name,
    displayPath: memoizeString((uri) => uriToDisplayPath(uri, root), 4096),
    digest: memoizeString(contentDigest, 4096),
    ids: new WeakMap(),
    locatedIds: new WeakMap(),
  };
}

/**
 * `<plugin>:<local id>`, the same string object each time a plugin returns the same
 * candidate: the packer and the writer then find its hash already computed. A freshly
 * concatenated id per query cost ~0.2 µs per candidate in hashing and comparing.
 */
function frameId(context: FrameContext, plugin: Plugin, localId: string): string {
  let ids = context.ids.get(plugin);
  if (ids === undefined) {
    ids = new GenerationalCache(4096);
    context.ids.set(plugin, ids);
  }
  let id = ids.get(localId);
  if (id === undefined) {
    id = `${plugin.name}:${localId}`;
    ids.set(localId, id);
  }
  return id;
}

/** Line numbers below this make an exact range key (start · 2²⁶ + end < 2⁵³). */
const RANGE_KEY_LIMIT = 2 ** 26;
/** At most 1024 files × 32 ranges are remembered: ~32k ids, a few MiB. */
const LOCATED_FILES = 1024;
const RANGES_PER_FILE = 32;

/**
 * `<plugin>:<uri>#L<start>-<end>` for a candidate without an id of its own, without
 * building (and hashing) that string again when the same section comes back.
 */
function locatedId(context: FrameContext, plugin: Plugin, uri: string, range: LineRange | undefined): string {
  if (range === undefined) return frameId(context, plugin, uri);
  if (range.start >= RANGE_KEY_LIMIT || range.end >= RANGE_KEY_LIMIT) {
    return frameId(context, plugin, `${uri}#${formatRange(range)}`);
  }
  let byUri = context.locatedIds.get(plugin);
  if (byUri === undefined) {
    byUri = new GenerationalCache(LOCATED_FILES);
    context.locatedIds.set(plugin, byUri);
  }
  let byRange = byUri.get(uri);
  if (byRange === undefined) {
    byRange = new Map();
    byUri.set(uri, byRange);
  }
  const key = range.start * RANGE_KEY_LIMIT + range.end;
  let id = byRange.get(key);
  if (id === undefined) {
    id = `${plugin.name}:${uri}#${formatRange(range)}`;
    // Bounded per file too (a plugin may cut one file into ever new ranges): a full
    // file's ranges start over, so the ones in use come back and the total stays under
    // files × RANGES_PER_FILE.
    if (byRange.size >= RANGES_PER_FILE) byRange.clear();
    byRange.set(key, id);
  }
  return id;
}

/**
 * Checks one raw candidate from `plugin` and settles its id, kind and score; or says
 * why it cannot ship. Runs for every candidate of every query, so a good one costs one
 * object.
 */
export function prepareCandidate(raw: unknown, plugin: Plugin, context: FrameContext): PreparedCandidate | string {
  const problem = candidateProblem(raw);
  if (problem !== undefined) return problem;
  const candidate = raw as Candidate;
  const kind = candidate.kind ?? (plugin.kinds[0] as FrameKind);
  if (!plugin.kinds.includes(kind)) return `kind '${kind}' is not one the plugin declared`;
  const { relevance } = candidate;
  const scale = plugin.scores ?? "unit";
  // The common case inline; mapRelevance() names what is wrong with the others.
  const usual = scale === "unit" && relevance >= 0 && relevance <= 1;
  const mapped = usual ? relevance : mapRelevance(relevance, scale);
  if (typeof mapped === "string") return mapped;
  let resolutions: PreparedResolution[] | undefined;
  let clampedView = false;
  if (candidate.resolutions !== undefined && candidate.resolutions.length > 0) {
    resolutions = [];
    for (const [index, resolution] of candidate.resolutions.entries()) {
      const score = mapRelevance(resolution.relevance ?? relevance, scale);
      if (typeof score === "string") return `resolutions.${index}.relevance: ${score}`;
      clampedView ||= score.clamped;
      resolutions.push({
        id:
          resolution.id !== undefined
            ? frameId(context, plugin, resolution.id)
            : locatedId(context, plugin, candidate.uri as string, resolution.range),
        content: resolution.content,
        range: resolution.range,
        score: score.score,
        resolution,
      });
    }
  }
  const id =
    candidate.id !== undefined
      ? frameId(context, plugin, candidate.id)
      : candidate.uri !== undefined
        ? locatedId(context, plugin, candidate.uri, candidate.range)
        : frameId(context, plugin, context.digest(candidate.content).slice(0, 23));
  return {
    id,
    kind,
    content: candidate.content,
    score: typeof mapped === "number" ? mapped : mapped.score,
    uri: candidate.uri,
    range: candidate.range,
    resolutions,
    pointerLine: candidate.pointerLine,
    clamped: (typeof mapped === "number" ? false : mapped.clamped) || clampedView,
    plugin,
    candidate,
  };
}

const TRAILING_RANGE = / L\d+(-\d+)?$/;
const NO_RELATIONS: NonNullable<Candidate["relations"]> = [];

/**
 * Builds the wire frame for a packed candidate: the candidate's own, a cut of it, one of
 * its larger views (its own content, range, score and id; other fields the candidate's)
 * or a one-line pointer to it.
 */
export function buildFrame(packed: PackedFrame<PreparedCandidate>, provider: FrameContext): ContextFrame {
  const { candidate: prepared, content, tokenCost, keptLines } = packed;
  const { candidate, plugin } = prepared;
  const view = (packed.resolution as PreparedResolution | undefined)?.resolution;
  const range =
    packed.range ??
    (candidate.range !== undefined && keptLines !== undefined
      ? { start: candidate.range.start, end: Math.min(candidate.range.end, candidate.range.start + keptLines - 1) }
      : candidate.range);
  const lines = range !== undefined ? formatRange(range) : undefined;
  // Cleaned before the emptiness checks: a label of nothing but controls is no label.
  let title = shown(view?.title ?? candidate.title);
  const ownCitation = view?.citationLabel;
  let citation = shown(ownCitation ?? candidate.citationLabel);
  if (title === undefined || citation === undefined) {
    // Only now: most plugins name both, and this builds (and scans) a fresh string.
    const path = candidate.path ?? (candidate.uri !== undefined ? provider.displayPath(candidate.uri) : undefined);
    const located = path !== undefined ? shown(lines !== undefined ? `${path} ${lines}` : path) : undefined;
    title ??= located ?? firstLine(content) ?? `${plugin.name} result`;
    citation ??= located ?? title;
  }
  // A cut frame, a view or a pointer cites the lines it holds, also when the plugin wrote
  // the candidate's label itself.
  const moved = keptLines !== undefined || packed.range !== undefined;
  if (moved && lines !== undefined && ownCitation === undefined && candidate.citationLabel !== undefined) {
    citation = citation.replace(TRAILING_RANGE, ` ${lines}`);
  }

  const entries = candidate.provenance ?? [];
  const first: CandidateProvenance | undefined = entries[0];
  // Fields are copied one by one: a plugin's objects may carry keys the wire must not see.
  const provenance: Provenance[] = [
    {
      type: first?.type ?? (candidate.uri?.startsWith("file:") ? "file" : "derivation"),
      uri: first?.uri ?? candidate.uri,
      range: lines ?? first?.range,
      digest: provider.digest(content),
      method: first?.method ?? plugin.name,
      by: first?.by ?? provider.name,
    },
  ];
  for (let i = 1; i < entries.length; i++) {
    const entry = entries[i] as CandidateProvenance;
    provenance.push({
      type: entry.type ?? "derivation",
      uri: entry.uri,
      range: entry.range,
      digest: entry.digest,
      method: entry.method,
      by: entry.by ?? provider.name,
    });
  }

  return {
    id: packed.resolution?.id ?? prepared.id,
    kind: prepared.kind,
    title,
    content,
    uri: candidate.uri,
    score: packed.resolution?.score ?? prepared.score,
    token_cost: tokenCost,
    valid_from: timestamp(candidate.validFrom),
    valid_to: timestamp(candidate.validTo),
    recorded_at: timestamp(candidate.recordedAt),
    provenance,
    citation_label: citation,
    embedding:
      candidate.embedding === undefined
        ? undefined
        : { fingerprint: candidate.embedding.fingerprint, vector: candidate.embedding.vector },
    relations: (candidate.relations ?? NO_RELATIONS).map((relation) => ({
      rel: relation.rel,
      target_uri: relation.targetUri,
      display_name: relation.displayName === undefined ? undefined : displayLine(relation.displayName),
    })),
    // Every field of the table, optional ones included, in its order: the writer's bytes
    // equal JSON.stringify's only for frames whose keys come in schema order.
  } satisfies Record<FrameField, unknown>;
}

/** `text` as one plain line, or undefined when nothing shows once it is cleaned. */
function shown(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const line = displayLine(text);
  return line.trim() !== "" ? line : undefined;
}

/** The first line of content that shows something, cleaned and shortened to 80 characters. */
function firstLine(content: string): string | undefined {
  for (const raw of content.split("\n")) {
    const line = shown(raw)?.trim();
    if (line === undefined || line === "") continue;
    const points = [...line]; // code points, so no surrogate pair is split
    return points.length > 80 ? `${points.slice(0, 79).join("")}…` : points.join("");
  }
  return undefined;
}

function timestamp(value: string | Date | undefined): string | undefined {
  return value instanceof Date ? value.toISOString() : value;
}
