/**
 * Text a person reads as one line — a frame's title and citation label, a relation's
 * display name, a line of a log — made safe to show, whatever a plugin, a file name or
 * a host's query put in it.
 *
 * A file may be called `a\nb`, `ESC[2J` or `evil\u202Etxt.exe`: left raw, such a title
 * opens a new line in a host's log, clears a terminal, or reads differently from its
 * bytes. Frame building cleans these fields here, once, for every plugin
 * ({@link displayLine}); the logger writes every message through {@link escapeLine},
 * which keeps what was there, spelled as escapes.
 */

/**
 * What may not be shown: every C0 and C1 control (line breaks, tab, ESC — which starts
 * terminal sequences —, NUL, DEL), the Unicode line and paragraph separators, and the
 * bidirectional controls (marks U+200E/U+200F/U+061C, embeddings and overrides
 * U+202A–U+202E, isolates U+2066–U+2069).
 */
const UNSAFE = /[\p{Cc}\p{Zl}\p{Zp}\p{Bidi_Control}]/u;
/** A run of unsafe characters with the whitespace around it: it becomes one space. */
const UNSAFE_RUN = /\s*(?:[\p{Cc}\p{Zl}\p{Zp}\p{Bidi_Control}]\s*)+/gu;

/**
 * `text` made one plain line: each run of control, separator or bidi-control characters
 * (with the spaces around it) becomes one space, and the ends are trimmed. A clean
 * string comes back as it is (the same string, without a copy): only one regex test is
 * paid on the usual path. The result contains none of those characters and may be empty.
 */
export function displayLine(text: string): string {
  return UNSAFE.test(text) ? text.replace(UNSAFE_RUN, " ").trim() : text;
}

/** An unsafe character as the escape JavaScript and JSON would write: `\n`, `\r`, `\t`, else `\uXXXX` (every one is in the BMP). */
function escapeOne(char: string): string {
  if (char === "\n") return "\\n";
  if (char === "\r") return "\\r";
  if (char === "\t") return "\\t";
  return `\\u${(char.codePointAt(0) as number).toString(16).padStart(4, "0")}`;
}

const UNSAFE_EACH = /[\p{Cc}\p{Zl}\p{Zp}\p{Bidi_Control}]/gu;

/**
 * `text` as one line for a log, nothing dropped: each character {@link displayLine} would
 * remove is written as an escape instead (`\n`, `\u001b`, `\u202e`), so a value a client
 * sent can neither start a forged line nor drive the terminal, and still reads as sent.
 * Backslashes are left alone (a Windows path stays readable). A clean string comes back
 * as it is, after one regex test.
 */
export function escapeLine(text: string): string {
  return UNSAFE.test(text) ? text.replace(UNSAFE_EACH, escapeOne) : text;
}

/** True iff `text` holds a character {@link displayLine} would remove. */
export function hasUnsafeDisplayText(text: string): boolean {
  return UNSAFE.test(text);
}

const UNSAFE_EACH_BUT_TAB = /(?!\t)[\p{Cc}\p{Zl}\p{Zp}\p{Bidi_Control}]/gu;

/**
 * Untrusted text fit to print in a terminal (a frame's content line, a title a provider
 * sent): each character {@link displayLine} would remove, tabs aside, becomes U+FFFD (�).
 * An escape sequence then drives nothing and a bidi override reorders nothing, and the
 * reader still sees that something was there. Split multi-line text into lines first.
 */
export function terminalText(text: string): string {
  return UNSAFE.test(text) ? text.replace(UNSAFE_EACH_BUT_TAB, "\ufffd") : text;
}

/** Multi-line untrusted text fit for a terminal: its line breaks kept, each line through {@link terminalText}. */
export function terminalLines(text: string): string {
  return UNSAFE.test(text) ? text.split("\n").map(terminalText).join("\n") : text;
}
