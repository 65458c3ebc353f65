/**
 * Text from the file system or the command line, made fit to print: a directory another
 * checkout filled may hold a file named `\u001b[2J` or `invoice\u202Etxt.exe`, and printed
 * raw such a name clears the terminal or reads differently from its bytes.
 */
import { escapeLine } from "ocp-provider";

/**
 * `text` with each control, separator and bidi character written as its escape (`\u202e`),
 * so that a name reads as it is and drives nothing: ocp-provider's `escapeLine`, the rule its
 * logs follow. Clean text comes back as it is.
 */
export const shownText: (text: string) => string = escapeLine;

/**
 * `text` as one word for a POSIX shell, to paste as it is printed: bare when it holds only
 * characters no shell treats specially; else in single quotes, each `'` written `'\''`;
 * and when it holds a control, separator or bidi character, in bash's and zsh's `$'…'`
 * with that character escaped (`\u202e`), since single quotes would hand it to the terminal
 * raw. A word that would start with `-` (read as an option) starts with `./` instead.
 */
export function shellWord(text: string): string {
  const word = text.startsWith("-") ? `./${text}` : text;
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  if (escapeLine(word) === word) return `'${word.replaceAll("'", "'\\''")}'`;
  // Backslashes and quotes first: escapeLine's own escapes (`\n`, `\uXXXX`) are then read by $'…' as meant.
  return `$'${escapeLine(word.replace(/[\\']/g, "\\$&"))}'`;
}
