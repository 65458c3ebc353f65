/**
 * Ranking a snippet into [0, 1], deterministically.
 *
 *     match     = 0.4·coverage + 0.3·fileCoverage + 0.3·pathMatch
 *     bracket   = 0.45 + 0.10·quality + 0.05·density + 0.15·path + 0.10·proximity
 *                      + 0.05·mention + 0.10·definition
 *     relevance = match × bracket × prior × repeat
 *
 * - coverage: the share of the query's term weight found in the snippet; fileCoverage:
 *   the same over every line rg matched in its file. A term's weight knows rare from
 *   common: its inverse document frequency over the files that matched (weights.ts).
 * - pathMatch: the share of the query's terms in the file's path (in its name 1, in a
 *   directory 0.5), each term weighted by its inverse document frequency among the
 *   matching files' *paths*, over the terms some path holds. `context` is in nearly every
 *   file of a web framework, so its text weight is near 0, but it names few files; a goal
 *   "perf(context): …" is about `src/context.ts`. A generic name (`index.ts`,
 *   `__init__.py`, `mod.rs`) counts its directory as the name.
 * - quality: per found term, its best match — whole word 1, an identifier part
 *   (`Config` in `parseConfigFile`, `tokens` in `max_tokens`) 0.7, any other
 *   substring 0.35 — averaged by weight.
 * - density: match lines / snippet lines.
 * - path: the weighted share of terms in the file's path — in its name 1, in a
 *   directory 0.5.
 * - proximity: the file is an anchor 1, beside one or under an anchored directory 0.5.
 * - mention: the snippet names an anchor symbol as a whole word.
 * - definition: a matched line looks like a definition (`function x`, `class X`,
 *   `def x`, `const x =`, `func`, `type`, ...): definitions above uses.
 * - prior: what kind of file it is — 1 for implementation, less for tests, fixtures,
 *   benchmarks, examples and docs (unless the query is about tests, or names the kind
 *   of directory: "docs example" for `examples/docs-provider.ts`) and for data
 *   (JSON, lockfiles, snapshots) ({@link filePrior}).
 * - repeat: 1 for a file's best snippet, then 0.45, 0.29, ... ({@link repeatFactor}), so
 *   the best snippet of the next file ships before a second one of this file.
 *
 * Every factor is in [0, 1], the two weight sets each sum to 1, so relevance is in [0, 1].
 *
 * The weights were tuned with `ocp eval` on the tuned split only (never the held-out
 * cases) of this repository's history and honojs/hono's: `npm run bench -- relevance`, see
 * docs/benchmarks.md.
 *
 * A goal that asks where an identifier is defined ({@link definitionQuestion}) is
 * answered by the line that declares it: there, `definition` is 1 for a window that
 * declares a named identifier (in any kind of file: prior 1) and 0 for the others, and
 * the asking words ("defined") weigh nothing.
 */
import type { Term } from "./terms.js";

/** The measured properties of one snippet, each in [0, 1] (`repeat` is the snippet's rank in its file, from 0). */
export interface SnippetFeatures {
  readonly coverage: number;
  readonly fileCoverage?: number;
  readonly quality: number;
  readonly density: number;
  readonly path: number;
  readonly pathMatch?: number;
  readonly proximity: number;
  readonly mention: number;
  readonly definition?: number;
  readonly prior?: number;
  readonly repeat?: number;
}

/** How snippet coverage, file coverage and the path's match mix; they sum to 1. */
export const MATCH_WEIGHTS = { coverage: 0.4, fileCoverage: 0.3, path: 0.3 } as const;

/** The weights of the bracket in the formula above; they sum to 1. */
export const RANK_WEIGHTS = {
  base: 0.45,
  quality: 0.1,
  density: 0.05,
  path: 0.15,
  proximity: 0.1,
  mention: 0.05,
  definition: 0.1,
} as const;

/** How good one occurrence of a term is. */
export const MATCH_QUALITY = { wholeWord: 1, identifierPart: 0.7, substring: 0.35 } as const;

const unit = (value: number) => (Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : 0);

/**
 * The factor of a file's `index`-th best snippet (0-based): 1, 0.45, 0.29, ... Steep, so
 * a file's second window ships after the first windows of nearly every other file that
 * matched as well: file recall counts files, and a second window of one file tells less
 * than the best window of the next.
 */
export function repeatFactor(index: number): number {
  const k = Number.isFinite(index) ? Math.max(0, Math.floor(index)) : 0;
  return 1 / (1 + 1.2 * k);
}

/** The relevance of a snippet (see the module comment). Missing optional features count as 1 for prior and coverage of the file, 0 otherwise. */
export function relevance(features: SnippetFeatures): number {
  const w = RANK_WEIGHTS;
  const bracket =
    w.base +
    w.quality * unit(features.quality) +
    w.density * unit(features.density) +
    w.path * unit(features.path) +
    w.proximity * unit(features.proximity) +
    w.mention * unit(features.mention) +
    w.definition * unit(features.definition ?? 0);
  const coverage = unit(features.coverage);
  const match =
    MATCH_WEIGHTS.coverage * coverage +
    MATCH_WEIGHTS.fileCoverage * unit(features.fileCoverage ?? coverage) +
    MATCH_WEIGHTS.path * unit(features.pathMatch ?? 0);
  return unit(match * bracket * unit(features.prior ?? 1) * repeatFactor(features.repeat ?? 0));
}

/** Tests, fixtures, benchmarks, examples, docs: where a path says so. */
const TESTISH =
  /(^|\/)(tests?|__tests__|specs?|fixtures?|__fixtures__|__mocks__|mocks?|testdata|test-support|test_utils|e2e|bench|benches|benchmarks?|examples?|samples?|docs?)\/|(^|[./_-])(test|spec|bench)\.[^/]+$|(^|\/)test_[^/]+$|_test\.[^/.]+$|(^|\/)conftest\.py$/i;
/**
 * Data and generated text rather than code; translation catalogs too (gettext `.po`/`.pot`,
 * XLIFF, Apple `.strings`, .NET `.resx`, Flutter `.arb`): each repeats the source's messages
 * once per language, so a goal that words a message matches dozens of near-identical files
 * before the code that says it.
 */
const DATA =
  /\.(json|jsonc|ya?ml|toml|lock|snap|csv|tsv|txt|svg|html?|xml|map|ipynb|po|pot|xlf|xliff|strings|resx|arb)$|\.min\.[^/]+$|(^|\/)(package-lock|yarn|pnpm-lock|bun)\.[^/]+$/i;
/** Prose. */
const PROSE = /\.(md|mdx|rst|adoc)$|(^|\/)(changelog|changes|history|news)[^/]*$/i;

/** Does the query speak of tests? Then tests are what it wants, and keep their full weight. */
export function aboutTests(terms: readonly { readonly text: string }[]): boolean {
  return terms.some((term) => /^(test|spec|fixture|mock|bench)/i.test(term.text));
}

/** A directory that holds tests, fixtures, benchmarks, examples or docs rather than the implementation. */
const KIND_DIRECTORY =
  /^(tests?|__tests__|specs?|fixtures?|__fixtures__|__mocks__|mocks?|testdata|test-support|test_utils|e2e|bench|benches|benchmarks?|examples?|samples?|docs?)$/i;

/**
 * Does the query name the kind of directory `path` lives in? "docs example: build the
 * index at setup" is about `examples/docs-provider.ts`: a term (3 letters or more, as
 * searched, so stemmed) that starts the directory's name (`example` → `examples`).
 */
export function namesKind(path: string, terms: readonly { readonly text: string }[]): boolean {
  const directories = path
    .split("/")
    .slice(0, -1)
    .filter((part) => KIND_DIRECTORY.test(part));
  if (directories.length === 0) return false;
  return directories.some((directory) => {
    const lower = directory.toLowerCase();
    return terms.some((term) => term.text.length >= 3 && lower.startsWith(term.text.toLowerCase()));
  });
}

/**
 * The prior of a file by its path (see the module comment): implementation 1, tests and
 * the like 0.55 (unless the query is about tests, or names the kind of directory the file
 * is in: {@link namesKind}), data 0.6, prose 0.7.
 */
export function filePrior(
  path: string,
  testsWanted: boolean,
  terms: readonly { readonly text: string }[] = [],
): number {
  if (DATA.test(path)) return 0.6;
  if (!testsWanted && TESTISH.test(path) && !namesKind(path, terms)) return 0.55;
  if (PROSE.test(path)) return 0.7;
  return 1;
}

/** A line that looks like a definition in the common languages: a declaration keyword, or `name = function/arrow`. */
const DEFINITION =
  /^\s*(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:abstract\s+)?(?:async\s+)?(?:(?:public|private|protected|static|readonly)\s+)*(?:function\*?|class|interface|type|enum|const|let|var|def|func|fn|struct|trait|impl|module|namespace|macro_rules!)\s|^\s*(?:pub(?:\([^)]*\))?\s+)(?:async\s+)?fn\s|^\s*(?:(?:public|private|protected|static|readonly|override|async|get|set)\s+)*(?!(?:if|for|while|switch|catch|return|else|do|with|elif|except)\b)[\p{L}_$][\p{L}\p{N}_$]*\s*(?:\([^)]*\)[^;=(]*\{\s*$|=\s*(?:async\s*)?(?:function\b|\([^)]*\)\s*(?::[^=]+)?=>))/u;

/** True if `line` looks like a definition (see {@link DEFINITION}'s comment). */
export function isDefinition(line: string): boolean {
  return DEFINITION.test(line);
}

/**
 * The name a definition line declares: the identifier after its modifiers and keyword
 * (`export function parseConfig(`, `def parse_config(`, `func (c *Conf) Parse(`), or its
 * first identifier (`parseConfig = (…) =>`, a method head). Undefined for a line that is
 * not a definition ({@link isDefinition}).
 */
export function declaredName(line: string): string | undefined {
  if (!DEFINITION.test(line)) return undefined;
  return DECLARED.exec(line)?.[1];
}

const DECLARED =
  /^\s*(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:abstract\s+)?(?:async\s+)?(?:(?:public|private|protected|static|readonly|override|get|set|pub(?:\([^)]*\))?)\s+)*(?:(?:function|class|interface|type|enum|const|let|var|def|func|fn|struct|trait|impl|module|namespace|macro_rules!)\s*\*?\s+(?:\([^)]*\)\s*)?)?([\p{L}_$][\p{L}\p{N}_$]*)/u;

/**
 * The words (as searched, so stemmed) that ask for a definition: "defined", "defining",
 * "definition", "declared", "declaration". Not "defines" or "declares", which say what
 * something does ("a plugin declares itself in its package.json") more often than they ask.
 */
const DEFINITION_WORD = /^(?:defin|definition|declar|declaration)$/i;

/** What a goal that asks where something is defined is after: see {@link definitionQuestion}. */
export interface DefinitionQuestion {
  /** Per term: one of the words that ask for a definition. */
  readonly asks: readonly boolean[];
  /** Does a definition line declare one of the identifiers the goal names? */
  declares(line: string): boolean;
}

/**
 * A goal that asks where an identifier it names is defined ("where is parseConfig
 * defined?", "the definition of parse_config"), or undefined for any other goal. Its
 * answer is the line that declares the identifier: not the README, test or package.json
 * that quote the question, although they hold more of its words. The words that ask
 * ("defined") say what the answer is and rarely occur in it, so they weigh nothing.
 */
export function definitionQuestion(terms: readonly Term[]): DefinitionQuestion | undefined {
  const asks = terms.map((term) => term.source === "word" && DEFINITION_WORD.test(term.text));
  const names = terms.filter((term) => term.source === "identifier");
  if (names.length === 0 || !asks.includes(true)) return undefined;
  return {
    asks,
    declares(line) {
      const name = declaredName(line);
      if (name === undefined) return false;
      return names.some((term) => (term.caseSensitive ? name === term.text : name.toLowerCase() === term.text));
    },
  };
}

const WORD_CHAR = /[\p{L}\p{M}\p{N}_]/u;
const UPPER = /\p{Lu}/u;
const LOWER = /\p{Ll}/u;
const LOWER_OR_DIGIT = /[\p{Ll}\p{N}]/u;

/** The code point starting at `index`, or "" past the end. */
function charAt(text: string, index: number): string {
  const point = text.codePointAt(index);
  return point === undefined ? "" : String.fromCodePoint(point);
}

/** The code point ending just before `index`, or "" at the start (surrogate pairs kept whole). */
function charBefore(text: string, index: number): string {
  if (index <= 0) return "";
  const low = text.charCodeAt(index - 1);
  if (index >= 2 && low >= 0xdc00 && low <= 0xdfff) return text.slice(index - 2, index);
  return text.slice(index - 1, index);
}

/**
 * How an occurrence at `[start, end)` of `line` sits among the characters around it:
 * a whole word, a part of an identifier (camelCase, acronym or snake_case
 * boundaries: `Config` in `parseConfigFile`, `HTTP` in `HTTPServer`, `tokens` in
 * `max_tokens`), or a bare substring.
 */
export function occurrenceQuality(line: string, start: number, end: number): number {
  const before = charBefore(line, start);
  const first = charAt(line, start);
  const second = charAt(line, start + first.length);
  const last = charBefore(line, end);
  const after = charAt(line, end);
  const afterAfter = charAt(line, end + after.length);
  const leftWord = WORD_CHAR.test(before);
  const rightWord = WORD_CHAR.test(after);
  if (!leftWord && !rightWord) return MATCH_QUALITY.wholeWord;
  const leftBoundary =
    !leftWord ||
    before === "_" ||
    (UPPER.test(first) && LOWER_OR_DIGIT.test(before)) ||
    (UPPER.test(first) && UPPER.test(before) && LOWER.test(second));
  const rightBoundary =
    !rightWord ||
    after === "_" ||
    (UPPER.test(after) && LOWER_OR_DIGIT.test(last)) ||
    (UPPER.test(after) && UPPER.test(last) && LOWER.test(afterAfter));
  return leftBoundary && rightBoundary ? MATCH_QUALITY.identifierPart : MATCH_QUALITY.substring;
}
