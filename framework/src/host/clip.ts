/** Shortening text for one-line reports: evidence, reasons, the gist of a stderr. */

/**
 * `text` in at most `max` characters (code points, the "…" included): whole, or cut at
 * the last space that fits and ended with "…" — never in the middle of a word
 * ("expected string to hav"). Only a word longer than half the room is cut where the
 * room ends; a surrogate pair is never split.
 */
export function clip(text: string, max: number): string {
  const points = [...text];
  if (points.length <= max) return text;
  const room = Math.max(0, max - 1);
  const head = points.slice(0, room).join("");
  // The space before the word that would be cut (when the text goes on with a space
  // right after the room, the whole head is words).
  const next = points[room] as string;
  const space = /\s/.test(next) ? head.length : head.search(/\s+\S*$/);
  const kept = space !== -1 && [...head.slice(0, space)].length >= room / 2 ? head.slice(0, space) : head;
  return `${kept.replace(/[\s,;:]+$/, "")}…`;
}
