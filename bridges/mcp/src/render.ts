/**
 * The text an agent gets (R3): frames as delimited, quoted, untrusted material, each
 * with its citation label, uri and line range, then one closing line that says
 * whether the answer was truncated — and the exact token count of all of it.
 *
 * The quoting is the host renderer's (`ocp-provider/host`): a fresh 128-bit boundary
 * drawn after the material was written and drawn again if the material holds it, header
 * fields flattened to one line. Here the boundary is written in decimal (39 digits)
 * rather than hex: the tokenizers split a run of digits into groups of three, so its
 * count is a sum of a few cached counts instead of a fresh tokenization of random text
 * on every call, and it costs fewer tokens (14 with its space, against about 20). The layout is chosen so that counting is cheap *and* exact: the text is
 * a sequence of pieces where every junction is a place where the tokenizers'
 * pre-tokenizer always splits, so the count of the whole is the sum of the counts of
 * the pieces, and a frame's content — already counted by the provider — costs a
 * cache lookup instead of a second tokenization.
 *
 * Why the junctions split (o200k_base and cl100k_base; both pre-tokenize with a regex
 * and count byte-pair tokens within each regex match):
 * - "\n" followed by "<": no alternative of either regex matches a newline followed
 *   by a non-space character other than "/" (the only pattern that takes trailing
 *   newlines, ` ?[^\s\p{L}\p{N}]+[\r\n/]*`, takes them after punctuation and then only
 *   newlines or "/"), and the match ending at the newline is the same with or without
 *   what follows: a whitespace run ending in a newline is matched by `\s*[\r\n]+`,
 *   never by the look-ahead pattern `\s+(?!\S)`.
 * - a letter or digit followed by "\n": no match holds a letter or digit followed by
 *   a newline, and a match ending in a letter or digit has no look-ahead.
 * - "\n" followed by a letter, digit, punctuation or symbol: the newline is a match of
 *   its own (`\s*[\r\n]+` backs off to it), and the content is split exactly as alone.
 * - a letter or digit followed by " " + the boundary, and the boundary (digits) followed
 *   by ">": no match holds a letter or digit followed by a space or by punctuation, and a
 *   space before a digit is a match of its own; within the boundary, `\p{N}{1,3}` takes
 *   the digits three at a time from the left.
 * Every piece below starts with "<" or " " + the boundary, or ends with a letter or digit,
 * where it meets the next one; a frame's body is "\n" + content, and its content ends
 * with "\n" (or the body is counted whole). Other tokenizers are not shown additive at
 * these junctions — `canonical` (bytes / 4) is not, and the open families pre-tokenize
 * differently (Qwen 3 splits digits one by one, Gemma 3 has newline runs as tokens) —
 * so their texts are counted whole: exact, and slower for the families.
 */
import { randomBytes } from "node:crypto";
import { createTokenCounter, type TokenCounter } from "ocp-provider";
import { DEFAULT_PREAMBLE, oneLine } from "ocp-provider/host";
import type { ContextFrame } from "ocp-provider/wire";

/** The rendered text with its exact token count. */
export interface ContextRendering {
  /** The whole text: preamble, quoted frames, closing line. */
  readonly text: string;
  /** Its exact token count under the provider's tokenizer. */
  readonly tokens: number;
}

/** What the closing line states. */
export interface Closing {
  /** More candidates existed than were shipped. */
  truncated: boolean;
  /** About how many were left out, when known. */
  dropped?: number;
  /** The budget the text fits. */
  maxTokens: number;
  /**
   * Why the answer may be missing matches beyond those (`plugin: sentence`, from
   * `QueryOptions.incomplete`): a plugin that could not search all it serves.
   */
  incomplete?: readonly string[];
}

/** One layout of some frames under one boundary; {@link Layout.finish} makes texts of its first frames. */
export interface Layout {
  /** The boundary every marker of this layout carries. */
  readonly boundary: string;
  /** The text of the first `count` frames, closed by the line `closing` describes, with its exact token count. */
  finish(count: number, closing: Closing): ContextRendering;
  /** The exact token count {@link Layout.finish} would give, without making the text. */
  count(count: number, closing: Closing): number;
}

/** Lays frames out and counts them with a provider's tokenizer. */
export interface ContextRenderer {
  /** Draws a boundary for these frames and counts every piece. */
  layout(frames: readonly ContextFrame[]): Layout;
}

/**
 * The closing line: truncated or not, and about how many frames were left out. An answer
 * a plugin could not complete (its index still being built) says so first: "nothing was
 * left out" would have an agent conclude that nothing exists.
 */
export function closingLine({ truncated, dropped, maxTokens, incomplete = [] }: Closing): string {
  const partial = incomplete.map((note) => oneLine(note).replace(/[.\s]+$/, "")).filter((note) => note !== "");
  if (partial.length > 0) {
    const notes = `Truncated: yes. Partial answer, more may match: ${partial.join("; ")}.`;
    if (dropped === undefined || dropped === 0) return notes;
    return `${notes} About ${dropped} more ${dropped === 1 ? "match" : "matches"} did not fit max_tokens ${maxTokens}.`;
  }
  if (!truncated) return "Truncated: no. Nothing that matched was left out.";
  if (dropped === undefined || dropped === 0)
    return `Truncated: yes. More matches did not fit max_tokens ${maxTokens}.`;
  const what = dropped === 1 ? "match" : "matches";
  return `Truncated: yes. About ${dropped} more ${what} did not fit max_tokens ${maxTokens}.`;
}

/** "L12-40" → "lines 12-40", "L7" → "line 7". */
function linesOf(range: string | undefined): string | undefined {
  const match = range === undefined ? null : /^L(\d+)(?:-(\d+))?$/.exec(range);
  if (match === null) return undefined;
  return match[2] === undefined ? `line ${match[1]}` : `lines ${match[1]}-${match[2]}`;
}

/**
 * A frame's header fields on one line: `[i] label · title · uri · lines a-b · kind`.
 * It ends with the kind, a word, so the junction after it splits (see above).
 */
export function frameHeader(frame: ContextFrame, index: number): string {
  const label = oneLine(frame.citation_label ?? "") || oneLine(frame.title) || oneLine(frame.id);
  const parts = [`[${index + 1}] ${label}`];
  const title = oneLine(frame.title);
  if (title !== "" && title !== label) parts.push(title);
  if (frame.uri !== undefined && oneLine(frame.uri) !== "") parts.push(oneLine(frame.uri));
  const range = frame.provenance[0]?.range;
  const lines = linesOf(range);
  if (lines !== undefined && !label.includes(range as string)) parts.push(lines);
  parts.push(frame.kind);
  return parts.join(" · ");
}

/** Digits of a 128-bit number in decimal. */
const BOUNDARY_DIGITS = 39;

/**
 * A fresh 128-bit boundary in decimal that occurs in none of `material` (so material
 * written before it was drawn cannot forge a marker).
 */
export function drawDecimalBoundary(material: readonly string[]): string {
  let boundary: string;
  do
    boundary = BigInt(`0x${randomBytes(16).toString("hex")}`)
      .toString()
      .padStart(BOUNDARY_DIGITS, "0");
  while (material.some((text) => text.includes(boundary)));
  return boundary;
}

/** Content whose first character keeps "\n" + content splitting after the newline. */
const SPLITS_AFTER_NEWLINE = /^[\p{L}\p{N}\p{P}\p{S}]/u;

/**
 * A renderer for a provider's tokenizer, for frames of that provider (whose `token_cost`
 * is exact under it). `contentCounter` should be the provider's own counter. The
 * wrapper's own texts are counted by a counter of their own, so they never evict the
 * provider's entries.
 */
export function createContextRenderer(
  contentCounter: TokenCounter,
  preamble: string = DEFAULT_PREAMBLE,
): ContextRenderer {
  const tokenizer = contentCounter.tokenizer;
  const additive = tokenizer === "o200k_base" || tokenizer === "cl100k_base";
  // Headers, markers without their boundary and closing lines repeat from call to call: cached.
  const stable = createTokenCounter({ tokenizer, cacheSize: 2048 });
  const newline = stable.count("\n");
  const intro = `${oneLine(preamble)}\n`;

  /** Tokens of "\n" + content (+ "\n"), the body of a frame; its `token_cost` is its content's exact count (B1). */
  function bodyTokens(frame: ContextFrame, body: string): number {
    const { content } = frame;
    if (content.endsWith("\n") && SPLITS_AFTER_NEWLINE.test(content)) return newline + frame.token_cost;
    return contentCounter.count(body);
  }

  return {
    layout(frames) {
      const headers = frames.map(frameHeader);
      const boundary = drawDecimalBoundary([...frames.map((frame) => frame.content), ...headers]);
      // Every marker is "<<name" + " " + boundary + ">>…": the boundary's tokens are the same in each,
      // a space and its digits three by three.
      let marked = 0;
      if (additive) {
        marked = stable.count(" ");
        for (let at = 0; at < boundary.length; at += 3) marked += stable.count(boundary.slice(at, at + 3));
      }
      const open = `${intro}<<ocp-context ${boundary}>>\n`;
      const openTokens = additive ? stable.count(`${intro}<<ocp-context`) + marked + stable.count(">>\n") : 0;
      const pieces = frames.map((frame, index) => {
        const head = `<<ocp-frame ${index + 1} ${boundary}>> ${headers[index]}`;
        const body = `\n${frame.content}${frame.content.endsWith("\n") ? "" : "\n"}`;
        const end = `<<ocp-end ${index + 1} ${boundary}>>\n`;
        const tokens = additive
          ? stable.count(`<<ocp-frame ${index + 1}`) +
            marked +
            stable.count(`>> ${headers[index]}`) +
            bodyTokens(frame, body) +
            stable.count(`<<ocp-end ${index + 1}`) +
            marked +
            stable.count(">>\n")
          : 0;
        return { text: head + body + end, tokens };
      });
      const closeOf = (closing: Closing) => `<</ocp-context ${boundary}>>\n${closingLine(closing)}\n`;
      const textOf = (shown: number, closing: Closing) =>
        open +
        pieces
          .slice(0, shown)
          .map((piece) => piece.text)
          .join("") +
        closeOf(closing);
      const count = (shown: number, closing: Closing) => {
        if (!additive) return contentCounter.count(textOf(shown, closing));
        let tokens =
          openTokens + stable.count("<</ocp-context") + marked + stable.count(`>>\n${closingLine(closing)}\n`);
        for (let index = 0; index < shown; index++) tokens += (pieces[index] as { tokens: number }).tokens;
        return tokens;
      };
      return {
        boundary,
        count,
        finish(shown, closing) {
          const text = textOf(shown, closing);
          return { text, tokens: additive ? count(shown, closing) : contentCounter.count(text) };
        },
      };
    },
  };
}
