/**
 * Text helpers the extractors share: one-line signatures and cleaned doc comments.
 */

const MAX_SIGNATURE = 300;
const MAX_DOC = 1000;

/** A declaration header on one line: whitespace collapsed, a trailing `{`, `=`, `;` or `:` dropped, shortened. */
export function oneLine(text: string): string {
  let line = text.replace(/\s+/g, " ").trim();
  line = line.replace(/\s*[{=;:]\s*$/, "").trimEnd();
  return shorten(line, MAX_SIGNATURE);
}

/**
 * The text of a doc comment without its markers: `/** … *\/` and `/*! … *\/` blocks,
 * `///`, `//!` and `//` line runs, and Python docstrings. Paragraphs are kept, lines
 * joined; long docs are shortened. Undefined when nothing is left.
 */
export function cleanDoc(raw: string): string | undefined {
  // Past a few times what is kept, the rest of a long doc is never read.
  let text = (raw.length > 2 * MAX_DOC ? raw.slice(0, 2 * MAX_DOC) : raw).trim();
  if (text.startsWith("/*")) {
    text = text
      .replace(/^\/\*+!?/, "")
      .replace(/\*+\/$/, "")
      .split("\n")
      .map((line) => line.replace(/^\s*\*(?!\/) ?/, ""))
      .join("\n");
  } else if (text.startsWith("//")) {
    text = text
      .split("\n")
      .map((line) => line.replace(/^\s*\/\/[/!]? ?/, ""))
      .join("\n");
  } else {
    text = stripPythonString(text);
  }
  const paragraphs = text
    .split(/\n\s*\n/)
    .map((paragraph) => paragraph.replace(/\s+/g, " ").trim())
    .filter((paragraph) => paragraph !== "");
  if (paragraphs.length === 0) return undefined;
  return shorten(paragraphs.join("\n\n"), MAX_DOC);
}

/** `text` cut to about `max` UTF-16 units with an ellipsis, never splitting a surrogate pair. */
function shorten(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 1;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--; // a high surrogate whose pair would be cut off
  return `${text.slice(0, end)}…`;
}

/** A Python string literal's body: prefixes (r, b, u, f) and quotes removed (also from a shortened one). */
function stripPythonString(literal: string): string {
  const open = /^[rRbBuUfF]{0,2}("""|'''|"|')/.exec(literal);
  if (open === null) return literal;
  const quote = open[1] as string;
  const body = literal.slice(open[0].length);
  return body.endsWith(quote) ? body.slice(0, -quote.length) : body;
}
