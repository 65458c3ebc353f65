/**
 * What the packer takes and gives: candidates (each a *region*: itself, its larger
 * views and a one-line pointer, of which at most one ships) and the frames chosen.
 */
import type { TokenCounter } from "../tokens/counter.js";
import type { FrameKind } from "../wire/schemas.js";
import type { CutMemo } from "./cut.js";
import type { LineRange } from "./lines.js";

/** A larger view of a candidate's source, as the packer sees it. */
export interface PackResolution {
  /** The frame id it ships under. */
  readonly id: string;
  /** The exact text of `range`. */
  readonly content: string;
  /** Lines of the candidate's `uri`, holding the candidate's range and the previous view's. */
  readonly range: LineRange;
  /** Its frame's score in [0, 1]. */
  readonly score: number;
}

/** What the packer needs to know of a candidate. */
export interface PackCandidate {
  /** Stable id; duplicates keep the best-scored one. */
  readonly id: string;
  /** The frame kind, checked against the query's `kinds`. */
  readonly kind: FrameKind;
  /** The text that would ship. */
  readonly content: string;
  /** Relevance in [0, 1]. */
  readonly score: number;
  /** Where the content lives; with `range`, it makes the candidate *located*: frames of one uri never overlap. */
  readonly uri?: string;
  /** The 1-based lines of `uri` that `content` holds. */
  readonly range?: LineRange;
  /** Larger views of the same source, smallest first, each holding the one before (needs `uri` and `range`). */
  readonly resolutions?: readonly PackResolution[];
  /** The line of `range` a pointer shows; default the first line with something on it. */
  readonly pointerLine?: number;
}

/** Options of `packFrames`. */
export interface PackOptions {
  /** Hard budget: Σ token_cost of the result never exceeds it. */
  maxTokens: number;
  /** At most this many frames ship. */
  maxFrames: number;
  /** When non-empty, only these kinds ship (the query's `kinds` is binding). */
  kinds?: readonly FrameKind[];
  /** The exact counter whose counts become `token_cost`. */
  counter: TokenCounter;
  /** Failed exact counts allowed before only surely-fitting candidates are considered. Default 32. */
  maxProbes?: number;
  /**
   * Cuts to reuse across calls (a {@link CutMemo}): a provider keeps one for its
   * life, since the same candidate meets the same budget whenever a host repeats a query.
   * Default: a fresh one per call.
   */
  cuts?: CutMemo;
  /**
   * How sure a score difference makes the packer when candidates offer larger views: a
   * region scoring this much above another counts as twice as likely to be the one the
   * host needs. Default {@link DEFAULT_SCORE_STEP}.
   */
  scoreStep?: number;
}

/** The default {@link PackOptions.scoreStep}: 0.05 of score doubles a region's odds. */
export const DEFAULT_SCORE_STEP = 0.05;

/** A candidate chosen to ship, with the exact content and cost that go on the wire. */
export interface PackedFrame<C extends PackCandidate> {
  /** The candidate it came from (the region). */
  readonly candidate: C;
  /** The shipped content: the candidate's, a prefix of whole lines of it, a larger view's, or one line of it. */
  readonly content: string;
  /** The exact token count of `content`. */
  readonly tokenCost: number;
  /** Set when the content was cut: how many of the candidate's lines were kept. */
  readonly keptLines?: number;
  /** Set when the shipped lines are not the candidate's `range` nor a cut of it: a view's, or a pointer's one line. */
  readonly range?: LineRange;
  /** Set when a larger view of the candidate shipped in its place. */
  readonly resolution?: PackResolution;
  /** True when the frame is a one-line pointer to the candidate. */
  readonly pointer?: true;
}

/** The packer's answer. */
export interface PackResult<C extends PackCandidate> {
  /** Frames in shipping order: best region first. */
  readonly frames: PackedFrame<C>[];
  /** Σ tokenCost of `frames`. */
  readonly totalTokens: number;
  /** True iff an eligible candidate was dropped, cut or shipped as a pointer. */
  readonly truncated: boolean;
  /**
   * Eligible candidates (after the kinds filter and dedup) that did not ship at all —
   * except those whose lines another frame of the same uri already holds.
   */
  readonly dropped: number;
}
