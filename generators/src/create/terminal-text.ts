/**
 * Text from the file system or the command line, made fit to print: a directory another
 * checkout filled may hold a file named `\u001b[2J` or `invoice\u202Etxt.exe`, and printed
 * raw such a name clears the terminal or reads differently from its bytes.
 */

/**
 * What may not reach a terminal raw — C0 and C1 controls (ESC starts terminal sequences),
 * the line and paragraph separators, and the bidirectional controls — as the framework's
 * frame titles define it.
 */
const UNSAFE = /[\p{Cc}\p{Zl}\p{Zp}\p{Bidi_Control}]/u;
const UNSAFE_EACH = /[\p{Cc}\p{Zl}\p{Zp}\p{Bidi_Control}]/gu;

/** One unsafe character as JavaScript (and bash's `$'…'`) writes it: `\n`, `\t`, else `\uXXXX` (all are in the BMP). */
function escapeOne(char: string): string {
  if (char === "\n") return "\\n";
  if (char === "\r") return "\\r";
  if (char === "\t") return "\\t";
  return `\\u${(char.codePointAt(0) as number).toString(16).padStart(4, "0")}`;
}

/**
 * `text` with each unsafe character written as its escape (`\u202e`), so that a name reads
 * as it is and drives nothing; clean text comes back as it is.
 */
export function shownText(text: string): string {
  return UNSAFE.test(text) ? text.replace(UNSAFE_EACH, escapeOne) : text;
}

/**
 * `text` as one word for a POSIX shell, to paste as it is printed: bare when it holds only
 * characters no shell treats specially; else in single quotes, each `'` written `'\''`;
 * and when it holds an unsafe character, in bash's and zsh's `$'…'` with that character
 * escaped, since single quotes would hand it to the terminal raw. A word that would start
 * with `-` (read as an option) starts with `./` instead.
 */
export function shellWord(text: string): string {
  const word = text.startsWith("-") ? `./${text}` : text;
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  if (!UNSAFE.test(word)) return `'${word.replaceAll("'", "'\\''")}'`;
  return `$'${word.replace(/[\\']/g, "\\$&").replace(UNSAFE_EACH, escapeOne)}'`;
}
