/**
 * Which commits make evaluation cases, and which of their files are the gold: the
 * rules docs/eval.md lists, kept in one place so the docs and the miner cannot drift.
 *
 * A case asks "given this commit's message, would the provider have shown the files the
 * commit changed?". That only means something when the message describes a change
 * (not "bump version", "fix typo", "format") and the change sits in a few source files
 * a code provider can see (not tests, docs, lockfiles, CI or generated code).
 */
import { createHash } from "node:crypto";

/** Source files by extension: code a code provider indexes. Config, data and prose are not gold. */
export const SOURCE_EXTENSIONS: ReadonlySet<string> = new Set(
  (
    "ts tsx mts cts js jsx mjs cjs py pyi go rs java kt kts scala rb php c h cc cpp cxx hpp hh cs swift m mm " +
    "lua pl pm sh bash zsh ex exs erl clj dart r jl hs ml vue svelte"
  ).split(" "),
);

/** Directory names whose contents are tests, fixtures or benchmarks. */
const TEST_DIRS = new Set([
  "test",
  "tests",
  "__tests__",
  "__test__",
  "spec",
  "specs",
  "testing",
  "test-support",
  "test_support",
  "test-utils",
  "test_utils",
  "testutils",
  "testdata",
  "test-data",
  "fixtures",
  "fixture",
  "__fixtures__",
  "__mocks__",
  "e2e",
  "bench",
  "benches",
  "benchmark",
  "benchmarks",
]);

/** Directory names whose contents are docs, examples of output, or not the project's own code. */
const EXCLUDED_DIRS = new Set([
  "docs",
  "doc",
  "node_modules",
  "vendor",
  "vendored",
  "third_party",
  "third-party",
  "thirdparty",
  "external",
  "dist",
  "build",
  "out",
  "generated",
  "__generated__",
  "gen",
  "target",
  "coverage",
]);

/** File names of tests and benchmarks: `x.test.ts`, `x.spec.js`, `test_x.py`, `x_test.py`, `x_test.go`, `conftest.py`, `x.bench.ts`. */
const TEST_FILE = /(^|[._-])(test|tests|spec|bench)\.[^.]+$|^test_[^/]*\.py$|_test\.(py|go)$|^conftest\.py$/i;

/** File names of generated or minified code. */
const GENERATED_FILE =
  /\.min\.[^.]+$|\.d\.[cm]?ts$|_pb2(_grpc)?\.pyi?$|\.pb\.go$|\.pb\.(cc|h)$|[._-]generated\.[^.]+$/i;

/** Why a changed path is not a gold file, or undefined when it is one. */
export function excludedPath(path: string): string | undefined {
  const parts = path.split("/");
  const name = parts[parts.length - 1] ?? "";
  const dirs = parts.slice(0, -1).map((dir) => dir.toLowerCase());
  // Hidden files and directories (.github/, .eslintrc.js): CI and tool config, and a code provider skips them.
  if (parts.some((part) => part.startsWith("."))) return "hidden";
  if (dirs.some((dir) => TEST_DIRS.has(dir)) || TEST_FILE.test(name)) return "test";
  if (dirs.some((dir) => EXCLUDED_DIRS.has(dir))) return "docs, vendored or generated directory";
  if (GENERATED_FILE.test(name)) return "generated or minified";
  const dot = name.lastIndexOf(".");
  const extension = dot > 0 ? name.slice(dot + 1).toLowerCase() : "";
  if (!SOURCE_EXTENSIONS.has(extension)) return "not a source file";
  return undefined;
}

/** Commit subjects that describe no change a search could find. */
const FILTERED_SUBJECTS: readonly RegExp[] = [
  /^merge\b/i, // merge and squash-merge commits
  /^revert\b/i,
  /^v?\d+(\.\d+)+\S*$/i, // "4.13.3", "v1.2.0-rc.1"
  /^(\[[^\]]*\]\s*)?(chore|style|ci|build|deps|docs?|tests?|release|wip)(\([^)]*\))?!?:/i,
  /^\[bot\]/i,
  /\b(bump|bumps|bumped|dependabot|renovate)\b/i,
  /^(pin|unpin)\b/i,
  /\b(release|releases|released|version)\s+v?\d/i,
  /\b(prepare|preparing|cut|tag)\s+(a\s+)?(release|version)\b/i,
  /\b(typo|typos|spelling|misspell\w*)\b/i,
  /^(fix|remove|strip|clean up|trim)\s+(trailing\s+)?whitespace\b/i,
  // Formatting and lint runs; "formatting" elsewhere ("date formatting") may well describe a change.
  /^(run\s+)?(reformat\w*|format|formatting|lint|linting|prettier|black|isort|ruff|eslint|biome)\b/i,
  /\b(fix|fixes|apply|run|satisfy)\s+(the\s+)?(lint|linting|linter|formatting|format|formatter|prettier|black|isort|ruff|eslint|biome|mypy)\b/i,
  /\b(update|upgrade|updated|upgraded)\s+(the\s+)?(dependencies|dependency|deps|lockfile|lock file|changelog|changes|copyright)\b/i,
  /\bchangelog\b/i,
];

/** Trailer lines (`Signed-off-by: …`) carry no description of the change. */
const TRAILER =
  /^[A-Za-z-]+-by:\s|^(Change-Id|Reviewed-on|Cherry-picked-from|Bug|Issue|PiperOrigin-RevId):\s|^\(cherry picked from commit [0-9a-f]+\)$/i;

/** The longest goal sent: commit bodies can run to pages, and a host's goal is a sentence or a paragraph. */
export const MAX_GOAL_CHARS = 1000;

/** The fewest words (runs of letters) a message must have to describe a change. */
export const MIN_GOAL_WORDS = 4;

/**
 * The goal a commit message makes: subject and body, without trailers, pull-request
 * numbers (`(#5255)`) and carriage returns, other control characters (ESC, U+001E, ...)
 * made spaces, whitespace runs collapsed, cut at {@link MAX_GOAL_CHARS} on a word boundary.
 */
export function goalFromMessage(message: string): string {
  const lines = message
    .replace(/\r/g, "")
    .replace(/[^\P{Cc}\n]/gu, " ")
    .split("\n");
  const kept = lines.filter((line, index) => index === 0 || !TRAILER.test(line.trim()));
  let goal = kept
    .join("\n")
    .replace(/\s*\(#\d+\)/g, "")
    .replace(/[ \t]+/g, " ")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
  if (goal.length > MAX_GOAL_CHARS) {
    const cut = goal.lastIndexOf(" ", MAX_GOAL_CHARS);
    goal = goal.slice(0, cut > MAX_GOAL_CHARS / 2 ? cut : MAX_GOAL_CHARS).trimEnd();
  }
  return goal;
}

/** Why a commit message is not a goal, or undefined when it is one. */
export function filteredMessage(message: string): string | undefined {
  const subject = (message.split("\n")[0] ?? "").trim();
  for (const rule of FILTERED_SUBJECTS) if (rule.test(subject)) return `subject matches ${rule.source}`;
  const goal = goalFromMessage(message);
  const words = goal.match(/\p{L}{2,}/gu) ?? [];
  if (words.length < MIN_GOAL_WORDS || goal.length < 20) return "too short";
  return undefined;
}

/** The most files a qualifying commit may change in all (tests and docs included): sweeping commits describe no one place. */
export const MAX_CHANGED_FILES = 12;

/** The fewest and most gold (source) files a qualifying commit changes. */
export const GOLD_FILES = { min: 1, max: 3 } as const;

/** The largest gold file: what a code provider reads (the ripgrep and symbols default). */
export const MAX_GOLD_BYTES = 1024 * 1024;

/** Why a gold file's content (as in the parent commit) disqualifies it, or undefined. */
export function excludedContent(content: Buffer): string | undefined {
  if (content.length > MAX_GOLD_BYTES) return "larger than 1 MiB";
  if (content.subarray(0, 8000).includes(0)) return "binary";
  const head = content.subarray(0, 2048).toString("utf8");
  if (/@generated|DO NOT EDIT|Code generated .* DO NOT|auto-?generated/i.test(head)) return "generated";
  const lines = content.toString("utf8").split("\n");
  if (lines.length > 0 && content.length / lines.length > 300) return "minified";
  return undefined;
}

/**
 * The held-out split: a case is held out iff the first 8 hex digits of the SHA-256 of its
 * key (the commit id, or a labelled goal), read as a number, are ≡ 0 mod 3 — about a third,
 * fixed by the key alone so it never moves when the case list grows or is sampled anew.
 */
export function heldOut(key: string): boolean {
  return Number.parseInt(createHash("sha256").update(key).digest("hex").slice(0, 8), 16) % 3 === 0;
}
