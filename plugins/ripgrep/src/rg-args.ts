/**
 * The rg command lines, built in one place so the rules hold everywhere: no config
 * file, no symlink following, the same ignore rules for listing and searching, and
 * every query-derived string only ever as the value of `-e` — never a flag.
 */
import { rustPattern, type Term } from "./terms.js";

/** What decides which files are seen at all; shared by {@link listArgs} and {@link searchArgs}. */
export interface FileRules {
  /** Search hidden files and directories (never `.git`). */
  hidden: boolean;
  /** Skip files larger than this many bytes. */
  maxFileSizeBytes: number;
  /** rg globs: `*.ts` includes, `!*.test.ts` excludes (see RipgrepOptions.globs). */
  globs?: readonly string[];
}

/** Flags that fix which files rg looks at; the same for listing and for searching. */
export function fileRuleArgs(rules: FileRules): string[] {
  return [
    // Ignore $RIPGREP_CONFIG_PATH: the environment must not add flags (a --pre, say).
    "--no-config",
    // Never leave the root through a symlink (this is rg's default; stated so no config can change it).
    "--no-follow",
    // .gitignore applies whether or not the root is a git checkout.
    "--no-require-git",
    ...(rules.hidden ? ["--hidden", "--glob=!.git"] : []),
    `--max-filesize=${rules.maxFileSizeBytes}`,
    ...globArgs(rules),
  ];
}

/**
 * The configured globs, then the rules they must not undo. An rg glob overrides rg's
 * other filters (`**` would reach .git and hidden files), and of several matching
 * globs the last wins: so `.git`, and hidden files unless asked for, are excluded
 * again after them.
 */
function globArgs(rules: FileRules): string[] {
  const globs = rules.globs ?? [];
  if (globs.length === 0) return [];
  return [...globs.map((glob) => `--glob=${glob}`), "--glob=!.git", ...(rules.hidden ? [] : ["--glob=!.*"])];
}

/** `rg --files` over the working directory, NUL-separated. */
export function listArgs(rules: FileRules): string[] {
  return ["--files", "--null", ...fileRuleArgs(rules), "--", "."];
}

/** What shapes one search besides the terms. */
export interface SearchRules extends FileRules {
  /** Lines of context on each side of a match. */
  contextLines: number;
  /** Stop reading a file after this many matching lines. */
  maxMatchesPerFile: number;
}

/**
 * `rg --json` for `terms` over the working directory. Each pattern is regex-escaped
 * and passed as the value of its own `-e`, and the path follows `--`, so no query
 * text can become a flag.
 */
export function searchArgs(terms: readonly Term[], rules: SearchRules): string[] {
  return [
    "--json",
    ...fileRuleArgs(rules),
    // Lines exactly as bytes on disk: no BOM stripping, no transcoding, so digests verify against the file.
    "--encoding=none",
    `--context=${rules.contextLines}`,
    `--max-count=${rules.maxMatchesPerFile}`,
    ...terms.flatMap((term) => ["-e", rustPattern(term)]),
    "--",
    ".",
  ];
}
