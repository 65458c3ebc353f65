/**
 * Term statistics from rg's own output: which of the query's terms each matching file
 * holds, how many files hold each term (document frequency), and from that a weight
 * per term that knows rare terms from common ones.
 *
 * Every file rg reports is observed once, when its last message has arrived, so the
 * counts cover the whole search and do not depend on the order rg's threads finish
 * files. A term's weight is its BM25 inverse document frequency over the files that
 * matched anything, `ln(1 + (N - df + 0.5) / (df + 0.5))`, times its source weight
 * (1 for a whole term, 0.5 for an identifier part); a term found nowhere keeps the
 * weight of a term found in one file. Weights are used as shares, so their scale does
 * not matter.
 */
import type { FileMatches } from "./collect.js";
import { type Term, termRegExp } from "./terms.js";

/** Per-query term statistics; {@link observe} is the collector's `score` hook. */
export class TermStats {
  readonly terms: readonly Term[];
  readonly matchers: readonly RegExp[];
  /** Files observed, and per term the files holding it. */
  files = 0;
  readonly df: number[];
  /**
   * Per observed file, which terms it holds (by index). A `Map`, not a `WeakMap`: it lives
   * exactly as long as its search, and every scavenge would have to trace a weak table.
   */
  readonly #present = new Map<FileMatches, boolean[]>();

  constructor(terms: readonly Term[]) {
    this.terms = terms;
    this.matchers = terms.map(termRegExp);
    this.df = terms.map(() => 0);
  }

  /** Which terms `file`'s match lines (or its path) hold; counted into the statistics on first sight. */
  present(file: FileMatches): boolean[] {
    const known = this.#present.get(file);
    if (known !== undefined) return known;
    const found = this.terms.map(() => false);
    const { matchers } = this;
    let missing = matchers.length;
    // Once every term is found the rest of the lines cannot change the answer: not decoded at all.
    for (let line = 0; line < file.matchLines.length && missing > 0; line++) {
      const text = file.lines.text(file.matchLines[line] as number);
      if (text === undefined) continue;
      for (let i = 0; i < matchers.length; i++) {
        if (found[i]) continue;
        const matcher = matchers[i] as RegExp;
        matcher.lastIndex = 0;
        if (matcher.test(text)) {
          found[i] = true;
          missing--;
        }
        matcher.lastIndex = 0;
      }
    }
    this.#present.set(file, found);
    this.files++;
    found.forEach((hit, i) => {
      if (hit) this.df[i] = (this.df[i] as number) + 1;
    });
    return found;
  }

  /**
   * A file's weight before its windows are ranked: the share of the query's raw term
   * weights its match lines hold. Order-independent (it reads the file alone), so the
   * collector can keep the best files under its cap whatever order they arrive in.
   */
  observe(file: FileMatches): number {
    const found = this.present(file);
    let total = 0;
    let held = 0;
    this.terms.forEach((term, i) => {
      total += term.weight;
      if (found[i]) held += term.weight;
    });
    return total > 0 ? held / total : 0;
  }

  /** Each term's weight: inverse document frequency × source weight (see the module comment). */
  weights(): number[] {
    const n = Math.max(1, this.files);
    return this.terms.map((term, i) => {
      const df = Math.max(1, this.df[i] as number);
      return term.weight * Math.log(1 + (n - df + 0.5) / (df + 0.5));
    });
  }
}
