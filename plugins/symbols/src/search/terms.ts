/**
 * From a query's text to what the symbol search looks for: identifier terms
 * (`Config.retry`, `parse_config`, `gSF`), phrases (`pack frames` may name
 * `packFrames`), kind hints (`the Config class`) and file names (`config.ts`).
 *
 * English function words are dropped unless they are written like code (in
 * backticks, camelCase, snake_case, qualified); a query of one such word is
 * searched as written.
 */
import { INDEXED_EXTENSIONS, type SymbolKind } from "../model.js";
import { type NameTerm, nameTerm } from "./match.js";
import { compactForm } from "./words.js";

/** What one query searches for. */
export interface QueryTerms {
  /** Identifier terms, in the order written, without duplicates. */
  readonly names: readonly NameTerm[];
  /** Runs of 2–3 consecutive terms run together (`packframes`), and how many terms each covers. */
  readonly phrases: readonly { readonly compact: string; readonly size: number }[];
  /** Kinds the text asks for ("the Config class", "retry method"). */
  readonly kinds: ReadonlySet<SymbolKind>;
  /** File names mentioned (`config.ts`), lower-case. */
  readonly files: ReadonlySet<string>;
}

/** The most identifier terms taken from one query. */
export const MAX_TERMS = 12;

/**
 * The most of a goal read, in characters (about 1,300 words; a commit message is rarely a
 * quarter of it). Every word read costs: a pasted megabyte took a second or two of the
 * provider's one thread to read, while every other request waited.
 */
export const MAX_GOAL_CHARS = 8192;

/** What is read of a goal: all of it up to {@link MAX_GOAL_CHARS}, else that much cut at its last space, so no word is read half. */
export function goalHead(text: string): string {
  if (text.length <= MAX_GOAL_CHARS) return text;
  const head = text.slice(0, MAX_GOAL_CHARS);
  const space = head.search(/\s\S*$/);
  return space > 0 ? head.slice(0, space) : head;
}

const TOKEN = /[\p{L}_$][\p{L}\p{N}_$]*(?:(?:\.|::|#|->)[\p{L}_$][\p{L}\p{N}_$]*)*/gu;

const KIND_WORDS: ReadonlyMap<string, SymbolKind> = new Map([
  ...(["function", "functions", "func", "fn"].map((word) => [word, "function"]) as [string, SymbolKind][]),
  ...(["method", "methods"].map((word) => [word, "method"]) as [string, SymbolKind][]),
  ...(["class", "classes"].map((word) => [word, "class"]) as [string, SymbolKind][]),
  ...(["interface", "interfaces"].map((word) => [word, "interface"]) as [string, SymbolKind][]),
  ...(["type", "types"].map((word) => [word, "type"]) as [string, SymbolKind][]),
  ...(["enum", "enums"].map((word) => [word, "enum"]) as [string, SymbolKind][]),
  ...(["struct", "structs"].map((word) => [word, "struct"]) as [string, SymbolKind][]),
  ...(["trait", "traits"].map((word) => [word, "trait"]) as [string, SymbolKind][]),
  ...(["variable", "variables", "var"].map((word) => [word, "variable"]) as [string, SymbolKind][]),
  ...(["constant", "constants", "const"].map((word) => [word, "constant"]) as [string, SymbolKind][]),
  ...(["property", "properties", "field", "fields", "attribute", "attributes"].map((word) => [word, "property"]) as [
    string,
    SymbolKind,
  ][]),
  ...(["constructor", "constructors", "ctor"].map((word) => [word, "constructor"]) as [string, SymbolKind][]),
  ...(["module", "modules"].map((word) => [word, "module"]) as [string, SymbolKind][]),
  ...(["namespace", "namespaces"].map((word) => [word, "namespace"]) as [string, SymbolKind][]),
  ...(["macro", "macros"].map((word) => [word, "macro"]) as [string, SymbolKind][]),
  ["getter", "getter"],
  ["setter", "setter"],
]);

const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    "a an the is are was were be been being am of in on at to for from by with without into onto over under " +
    "about and or not no nor but if then else so than as it its this that these those there here what where which " +
    "who whom whose when why how does do did done doing can could should would will shall may might must " +
    "i me my we us our you your they them their he she his her all any some each every " +
    "defined define defines definition declared declare declaration implemented implementation implements " +
    "located locate look looks show shows explain explains describe please want need needs used uses using " +
    "code codebase symbol symbols work works happen happens called call calls"
  ).split(" "),
);

/** Written like code: not a plain lower-case (or Capitalised) English word. */
function codeShaped(token: string): boolean {
  return /[_$.:#>\p{N}]/u.test(token) || /\p{Ll}\p{Lu}/u.test(token) || /^\p{Lu}{2,}$/u.test(token);
}

const EXTENSIONS = new Set(INDEXED_EXTENSIONS.map((extension) => extension.slice(1)));

/**
 * Whether a query looks a symbol up rather than describing a goal in prose: at most
 * two names, or names that are all written like code (`Config.retry`, `parse_config`,
 * `createSourceFile`). A lookup is ranked by the match tiers; prose by its words.
 */
export function isLookup(terms: QueryTerms): boolean {
  return terms.names.length <= 2 || terms.names.every((name) => codeShaped(name.qualified?.text ?? name.name));
}

/** Reads a query text (its {@link goalHead}) into {@link QueryTerms}. */
export function queryTerms(whole: string): QueryTerms {
  const text = goalHead(whole);
  const quoted = new Set<string>();
  for (const match of text.matchAll(/`([^`]+)`/g))
    for (const token of (match[1] as string).match(TOKEN) ?? []) quoted.add(token);

  const kept: string[] = [];
  const dropped: string[] = [];
  const kinds = new Set<SymbolKind>();
  const files = new Set<string>();
  for (const token of text.match(TOKEN) ?? []) {
    const lower = token.toLowerCase();
    const extension = lower.slice(lower.lastIndexOf(".") + 1);
    if (lower.includes(".") && EXTENSIONS.has(extension)) {
      files.add(lower.slice(lower.lastIndexOf("/") + 1));
      continue;
    }
    if (quoted.has(token) || codeShaped(token)) kept.push(token);
    else if (KIND_WORDS.has(lower)) {
      kinds.add(KIND_WORDS.get(lower) as SymbolKind);
      dropped.push(token);
    } else if (STOP_WORDS.has(lower)) dropped.push(token);
    else kept.push(token);
  }
  // A one-word query of a function word ("type", "where") is searched as written; a sentence of
  // them ("what is in here") has no names to look for, only anchors.
  const fallback = kept.length === 0 && dropped.length === 1;
  const chosen = [...new Set(fallback ? dropped : kept)].slice(0, MAX_TERMS);
  if (fallback) kinds.clear();

  const names = chosen.map(nameTerm);
  // Phrases follow the text as written (repeats included): "pack the frames" holds "pack frames".
  const plain = (fallback ? dropped : kept).filter((token) => !/\.|::|#|->/.test(token)).slice(0, 2 * MAX_TERMS);
  const phrases = new Map<string, number>();
  for (let size = 2; size <= 3; size++) {
    for (let i = 0; i + size <= plain.length; i++) {
      const compact = compactForm(plain.slice(i, i + size).join(""));
      if (!phrases.has(compact)) phrases.set(compact, size);
    }
  }
  return { names, phrases: [...phrases].map(([compact, size]) => ({ compact, size })), kinds, files };
}
