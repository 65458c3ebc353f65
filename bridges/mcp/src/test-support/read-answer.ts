/**
 * Test support (not shipped): a tool answer read back the way its preamble tells an
 * agent to read it — by the boundary the preamble names, and nothing else. Tests compare
 * what it reads with what the provider sent: if content could forge a marker, the frames
 * read here would not be the frames sent.
 */

/** One frame as read: the text of its marker line and its content, with the newline that ends it. */
export interface ReadFrame {
  readonly header: string;
  readonly content: string;
}

/** An answer as read. */
export interface ReadAnswer {
  /** The boundary the preamble names. */
  readonly boundary: string;
  /** The first line, the bridge's. */
  readonly preamble: string;
  readonly frames: readonly ReadFrame[];
  /** The lines after the quote's end, the bridge's. */
  readonly after: readonly string[];
}

/**
 * Reads `text`: the boundary B from the preamble's `<<B citation>>`, then each line
 * `<<B header>>` opens a frame, the line `<</B>>` ends the quote, and every other line
 * belongs to the frame it follows. Throws if the text does not have that shape.
 */
export function readAnswer(text: string): ReadAnswer {
  if (!text.endsWith("\n")) throw new Error("the answer does not end with a newline");
  const lines = text.slice(0, -1).split("\n");
  const preamble = lines[0] ?? "";
  const boundary = /<<(\d+) citation>>/.exec(preamble)?.[1];
  if (boundary === undefined) throw new Error(`no boundary in the preamble: ${preamble}`);
  const open = `<<${boundary} `;
  const end = `<</${boundary}>>`;
  const frames: { header: string; lines: string[] }[] = [];
  let at = 1;
  for (; at < lines.length; at++) {
    const line = lines[at] as string;
    if (line === end) break;
    if (line.startsWith(open) && line.endsWith(">>")) frames.push({ header: line.slice(open.length, -2), lines: [] });
    else if (frames.length === 0) throw new Error(`line ${at + 1} is inside the quote but in no frame: ${line}`);
    else frames.at(-1)?.lines.push(line);
  }
  if (at === lines.length) throw new Error("the quote never ends");
  return {
    boundary,
    preamble,
    frames: frames.map((frame) => ({ header: frame.header, content: frame.lines.map((line) => `${line}\n`).join("") })),
    after: lines.slice(at + 1),
  };
}
