/**
 * How well one query term names one symbol, as a tier and a quality within it.
 *
 * Tiers, best first: the exact name; the name in another case; a prefix of the
 * name; camel-hump / subword (`gSF`, `getSF` and `sourceFile` all name
 * `getSourceFile`; `config` names `parseConfig`); fuzzy (the letters in order from
 * the name's first, or one typo — two in long names). A qualified term
 * (`Config.retry`) is matched against qualified names, and when only its last part
 * matches, the container decides how much that is worth.
 */
import { bitCount, charMask, compactForm, initialsMask, splitWords, stem } from "./words.js";

/** Match tiers, worst to best; {@link Tier.None} is no match. */
export enum Tier {
  None = 0,
  Fuzzy = 1,
  Subword = 2,
  Prefix = 3,
  CaseInsensitive = 4,
  Exact = 5,
}

/** A tier and how good the match is within it, in [0, 1]. */
export interface Match {
  readonly tier: Tier;
  readonly quality: number;
}

/** What matching needs of a name (precomputed once per symbol, or on first use). */
export interface MatchableName {
  readonly name: string;
  readonly lower: string;
  readonly compact: string;
  readonly words: readonly string[];
  readonly mask: number;
  /** {@link charMask} of the first letters of the name's words. */
  readonly initials: number;
}

/** A query term, prepared for matching. */
export interface NameTerm extends MatchableName {
  /** For a qualified term (`Config.retry`): the whole, `.`-separated, and its parts. */
  readonly qualified?: {
    readonly text: string;
    readonly lower: string;
    readonly container: NameTerm;
    readonly last: NameTerm;
  };
  /** The term's stem when it differs (`counted` → `count`), for subword matching, and its mask. */
  readonly stem?: { readonly text: string; readonly mask: number };
}

const NONE: Match = { tier: Tier.None, quality: 0 };

/** Prepares a name (a symbol's or a term's) for matching. */
export function matchable(name: string): MatchableName {
  const lower = name.toLowerCase();
  const words = splitWords(name);
  return { name, lower, compact: compactForm(name), words, mask: charMask(lower), initials: initialsMask(name) };
}

/** Prepares a query term; `Config.retry`, `Config::retry` and `Config#retry` are qualified. */
export function nameTerm(text: string): NameTerm {
  const parts = text.split(/\.|::|#|->/).filter((part) => part !== "");
  if (parts.length > 1) {
    const normal = parts.join(".");
    const container = nameTerm(parts.slice(0, -1).join("."));
    const last = nameTerm(parts[parts.length - 1] as string);
    return { ...last, qualified: { text: normal, lower: normal.toLowerCase(), container, last } };
  }
  const base = matchable(text);
  const stemmed = stem(base.lower);
  return stemmed !== base.lower ? { ...base, stem: { text: stemmed, mask: charMask(stemmed) } } : base;
}

/** Matches a bare term against a bare name. */
export function matchName(term: NameTerm, name: MatchableName): Match {
  const missing = term.mask & ~name.mask;
  if (missing !== 0) {
    // `counted` lacks nothing of `countTokens` once stemmed to `count`.
    const stemmed =
      term.stem !== undefined &&
      (term.stem.mask & ~name.mask) === 0 &&
      (name.initials & charMask(term.stem.text.charAt(0))) !== 0
        ? humps(term.stem.text, name.words)
        : 0;
    if (stemmed > 0) return { tier: Tier.Subword, quality: stemmed };
    return bitCount(missing) === 1 ? typo(term.lower, name.lower) : NONE;
  }
  if (name.name === term.name) return { tier: Tier.Exact, quality: 1 };
  if (name.lower === term.lower) return { tier: Tier.CaseInsensitive, quality: 1 };
  if (name.lower.startsWith(term.lower)) return { tier: Tier.Prefix, quality: term.lower.length / name.lower.length };
  // Humps start at a word start: a test on the name's word initials spares splitting most names.
  if (term.compact.length >= 2 && (name.initials & charMask(term.compact.charAt(0))) !== 0) {
    const covered =
      humps(term.compact, name.words) || (term.stem !== undefined ? humps(term.stem.text, name.words) : 0);
    if (covered > 0) return { tier: Tier.Subword, quality: covered };
  }
  const fuzzy = subsequence(term.lower, name.lower);
  return fuzzy > 0 ? { tier: Tier.Fuzzy, quality: fuzzy } : typo(term.lower, name.lower);
}

/** What one scan shares between matches: the verdict on each container name, computed once. */
export interface MatchContext {
  readonly containers: Map<string, Match>;
}

/**
 * Matches a term against a symbol: its name, or for a qualified term its qualified
 * name (`qualifiedKey` is `.`-separated and lower-case) and container.
 */
export function matchSymbol(
  term: NameTerm,
  symbol: MatchableName & {
    readonly qualifiedKey: string;
    readonly qualifiedNormal: string;
    readonly containerKey?: string;
  },
  context: MatchContext = { containers: new Map() },
): Match {
  const qualified = term.qualified;
  if (qualified === undefined) return matchName(term, symbol);
  const last = matchName(qualified.last, symbol);
  if (last.tier === Tier.None) return NONE;
  const key = symbol.qualifiedKey;
  if (key === qualified.lower || key.endsWith(`.${qualified.lower}`)) {
    const exact = symbol.qualifiedNormal === qualified.text || symbol.qualifiedNormal.endsWith(`.${qualified.text}`);
    return { tier: exact ? Tier.Exact : Tier.CaseInsensitive, quality: 1 };
  }
  const container = symbol.containerKey;
  const containerTerm = qualified.container;
  if (container !== undefined && (container === containerTerm.lower || container.endsWith(`.${containerTerm.lower}`))) {
    return last;
  }
  const lastContainer = container?.slice(container.lastIndexOf(".") + 1);
  let near = NONE;
  if (lastContainer !== undefined) {
    const cacheKey = `${containerTerm.lower}\0${lastContainer}`;
    near = context.containers.get(cacheKey) ?? matchName(containerTerm, matchable(lastContainer));
    context.containers.set(cacheKey, near);
  }
  // The right member of a similar container is a prefix-grade match; of another container, a subword one at best.
  if (near.tier >= Tier.Subword)
    return { tier: Math.min(last.tier, Tier.Prefix), quality: last.quality * near.quality };
  return { tier: Math.min(last.tier, Tier.Subword), quality: last.quality / 2 };
}

/**
 * Camel humps: can `term` be read as prefixes of consecutive words of the name
 * (`gsf` → get·source·file)? Returns the share of the name's words covered, or 0.
 */
export function humps(term: string, words: readonly string[]): number {
  for (let start = 0; start < words.length; start++) {
    if (words[start]?.charCodeAt(0) !== term.charCodeAt(0)) continue;
    const end = humpsFrom(term, 0, words, start);
    if (end > 0) return (end - start) / words.length;
  }
  return 0;
}

function humpsFrom(term: string, at: number, words: readonly string[], word: number): number {
  if (at === term.length) return word;
  const current = words[word];
  if (current === undefined) return -1;
  // Longest prefix of this word first: `sourcefile` takes all of `source` before trying `s`.
  for (let take = Math.min(current.length, term.length - at); take >= 1; take--) {
    if (term.startsWith(current.slice(0, take), at)) {
      const end = humpsFrom(term, at + take, words, word + 1);
      if (end >= 0) return end;
    }
  }
  return -1;
}

/** The term's letters in order in the name, starting at its first: quality = term length / span, 0 if not. */
function subsequence(term: string, name: string): number {
  if (term.length < 3 || name.charCodeAt(0) !== term.charCodeAt(0)) return 0;
  let at = 0;
  for (let i = 0; i < term.length; i++) {
    at = name.indexOf(term[i] as string, i === 0 ? 0 : at + 1);
    if (at === -1) return 0;
  }
  const span = at + 1;
  return span <= 3 * term.length ? term.length / span : 0;
}

/** One edit (two for names of nine letters or more) between term and name, for terms of five letters or more. */
function typo(term: string, name: string): Match {
  if (term.length < 5) return NONE;
  const allowed = term.length >= 9 ? 2 : 1;
  if (Math.abs(term.length - name.length) > allowed) return NONE;
  const distance = editDistance(term, name, allowed);
  return distance <= allowed ? { tier: Tier.Fuzzy, quality: 1 - distance / (term.length + 1) } : NONE;
}

/** Damerau–Levenshtein (optimal string alignment) distance, or `limit + 1` once it exceeds `limit`. */
export function editDistance(a: string, b: string, limit: number): number {
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(
        (previous[j] as number) + 1,
        (current[j - 1] as number) + 1,
        (previous[j - 1] as number) + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        value = Math.min(value, (before[j - 2] as number) + 1);
      current.push(value);
      rowMin = Math.min(rowMin, value);
    }
    if (rowMin > limit) return limit + 1;
    before = previous;
    previous = current;
  }
  return previous[b.length] as number;
}
