/**
 * The MCP bridge's answer format before issue 29, kept only as the baseline the
 * benchmark compares the content share with, in the same run: a 128-bit boundary in 39
 * decimal digits written twice per frame (an open and an end marker), a numbered header
 * with the citation label, title, full uri, line range and kind, and the host renderer's
 * preamble. Texts are counted whole: this measures shares, not speed.
 */
import { randomBytes } from "node:crypto";
import type { TokenCounter } from "ocp-provider";
import { DEFAULT_PREAMBLE, oneLine } from "ocp-provider/host";
import type { ContextFrame } from "ocp-provider/wire";
import type { Closing, ContextRenderer } from "ocp-provider-mcp";
import { closingLine } from "ocp-provider-mcp";

function linesOf(range: string | undefined): string | undefined {
  const match = range === undefined ? null : /^L(\d+)(?:-(\d+))?$/.exec(range);
  if (match === null) return undefined;
  return match[2] === undefined ? `line ${match[1]}` : `lines ${match[1]}-${match[2]}`;
}

function oldHeader(frame: ContextFrame, index: number): string {
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

/** The old renderer, counting with `counter`. */
export function oldContextRenderer(counter: TokenCounter): ContextRenderer {
  return {
    layout(frames) {
      const headers = frames.map(oldHeader);
      let boundary: string;
      do
        boundary = BigInt(`0x${randomBytes(16).toString("hex")}`)
          .toString()
          .padStart(39, "0");
      while ([...frames.map((frame) => frame.content), ...headers].some((text) => text.includes(boundary)));
      const textOf = (shown: number, closing: Closing) => {
        let text = `${oneLine(DEFAULT_PREAMBLE)}\n<<ocp-context ${boundary}>>\n`;
        for (let i = 0; i < shown; i++) {
          const { content } = frames[i] as ContextFrame;
          text += `<<ocp-frame ${i + 1} ${boundary}>> ${headers[i]}\n${content}${content.endsWith("\n") ? "" : "\n"}`;
          text += `<<ocp-end ${i + 1} ${boundary}>>\n`;
        }
        return `${text}<</ocp-context ${boundary}>>\n${closingLine(closing)}\n`;
      };
      const count = (shown: number, closing: Closing) => counter.count(textOf(shown, closing));
      return {
        boundary,
        count,
        finish: (shown, closing) => {
          const text = textOf(shown, closing);
          return { text, tokens: counter.count(text) };
        },
      };
    },
  };
}
