/**
 * A small git repository made with the real `git`, for the `ocp eval` tests: commits
 * with descriptive messages that should become cases, and commits every rule of the
 * miner should skip (a typo fix, a version bump, a lockfile, a new file, a merge, ...).
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { deflateSync } from "node:zlib";

/** The fixture: its directory and the commit ids by name. */
export interface GitFixture {
  readonly dir: string;
  readonly commits: Readonly<Record<string, string>>;
}

/** Runs git in `dir` with a fixed identity and dates, so commit order never depends on the clock. */
export function gitIn(dir: string, args: string[], date?: number): string {
  const when = date === undefined ? undefined : `${1_700_000_000 + date * 60} +0000`;
  return execFileSync("git", args, {
    cwd: dir,
    encoding: "utf8",
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: "Fixture",
      GIT_AUTHOR_EMAIL: "fixture@example.com",
      GIT_COMMITTER_NAME: "Fixture",
      GIT_COMMITTER_EMAIL: "fixture@example.com",
      GIT_CONFIG_NOSYSTEM: "1",
      ...(when === undefined ? {} : { GIT_AUTHOR_DATE: when, GIT_COMMITTER_DATE: when }),
    },
  }).trim();
}

/** The source of `src/retry.ts` before and after the retry commit. */
export const RETRY_BEFORE = `export function retry(task: () => Promise<void>): Promise<void> {\n  return task();\n}\n`;
export const RETRY_AFTER = `export async function retry(task: () => Promise<void>, attempts = 3): Promise<void> {\n  for (let i = 1; ; i++) {\n    try {\n      return await task();\n    } catch (error) {\n      if (i >= attempts) throw error;\n      await new Promise((r) => setTimeout(r, 2 ** i * 100)); // exponential backoff\n    }\n  }\n}\n`;

/** Filler so the tree has more than the gold files in it: files about other things. */
function filler(topic: string, lines: number): string {
  return Array.from({ length: lines }, (_, i) => `// ${topic} note ${i}: unrelated ${topic} details\n`).join("");
}

/**
 * Creates the fixture repository. Newest first, the qualifying commits are `side`
 * (src/theme.ts, merged in from a branch), `parser` (src/parser.ts, with a lockfile
 * change beside it) and `retry` (src/retry.ts, with its test); every other commit is
 * one a rule skips.
 */
export function makeGitFixture(): GitFixture {
  const dir = mkdtempSync(join(tmpdir(), "ocp-eval-fixture-"));
  const commits: Record<string, string> = {};
  let clock = 0;
  const write = (files: Record<string, string>) => {
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
  };
  const commit = (name: string, message: string, files: Record<string, string>) => {
    write(files);
    gitIn(dir, ["add", "-A"]);
    gitIn(dir, ["commit", "-q", "-m", message], clock++);
    commits[name] = gitIn(dir, ["rev-parse", "HEAD"]);
  };
  gitIn(dir, ["init", "-q", "-b", "main"]);
  commit("root", "Initial import of the toolkit with its parser and retry helper", {
    "src/retry.ts": RETRY_BEFORE,
    "src/parser.ts": `export function parse(input: string): string[] {\n  return input.split(",");\n}\n`,
    "src/logger.ts": filler("logging", 30),
    "src/colors.ts": filler("palette", 30),
    "src/theme.ts": filler("theme", 20),
    "test/retry.test.ts": `import { retry } from "../src/retry";\n`,
    "README.md": "# toolkit\n\nA toolkit.\n",
    "package.json": `{ "name": "toolkit", "version": "1.0.0" }\n`,
    "package-lock.json": `{ "lockfileVersion": 3 }\n`,
  });
  commit("retry", "Retry failed tasks with exponential backoff\n\nSigned-off-by: Fixture <fixture@example.com>", {
    "src/retry.ts": RETRY_AFTER,
    "test/retry.test.ts": `import { retry } from "../src/retry";\n// retries three times\n`,
  });
  commit("typo", "Fix typo in the parser comment", {
    "src/parser.ts": `// parse\nexport function parse(input: string): string[] {\n  return input.split(",");\n}\n`,
  });
  commit("bump", "Bump version to 1.1.0", { "package.json": `{ "name": "toolkit", "version": "1.1.0" }\n` });
  commit("docs", "Explain in the readme how the parser splits its input", {
    "README.md": "# toolkit\n\nSplits on commas.\n",
  });
  commit("tests-only", "Cover the retry helper when every attempt fails", {
    "test/retry.test.ts": `import { retry } from "../src/retry";\n// all attempts fail\n`,
  });
  commit("adds", "Add a cache module that keeps recent parser results", {
    "src/cache.ts": `export const cache = new Map<string, string[]>();\n`,
  });
  commit("short", "wip", { "src/logger.ts": `${filler("logging", 30)}// wip\n` });
  commit("sweep", "Rename the internal helpers across every module of the toolkit", {
    "src/retry.ts": `${RETRY_AFTER}// renamed\n`,
    "src/parser.ts": `export function parse(input: string): string[] {\n  return input.split(",");\n}\n// renamed\n`,
    "src/logger.ts": `${filler("logging", 30)}// renamed\n`,
    "src/colors.ts": `${filler("palette", 30)}// renamed\n`,
  });
  commit("parser", "Parser: drop the spaces around each field it splits out of its input", {
    "src/parser.ts": `export function parse(input: string): string[] {\n  return input.split(",").map((field) => field.trim());\n}\n`,
    "package-lock.json": `{ "lockfileVersion": 3, "packages": {} }\n`,
  });
  // A merge commit (never a case, whatever its message says).
  gitIn(dir, ["checkout", "-q", "-b", "side", commits.root as string]);
  commit("side", "Teach the theme module about dark mode colours", {
    "src/theme.ts": `${filler("theme", 20)}// dark\n`,
  });
  gitIn(dir, ["checkout", "-q", "main"]);
  gitIn(dir, ["merge", "-q", "--no-ff", "-m", "Merge the dark mode palette into the toolkit", "side"], clock++);
  commits.merge = gitIn(dir, ["rev-parse", "HEAD"]);
  return { dir, commits };
}

/**
 * Writes a loose blob object to the repository in `dir` whose header says `size` bytes
 * but whose compressed stream is cut short after its first bytes: git tells its size
 * (`cat-file --batch-check`, `ls-tree -l`) but any read of its content fails and ends
 * `git cat-file --batch`. A witness that a reader skipped an object by its size, unread.
 * Returns its object id.
 */
export function writeUnreadableBlob(dir: string, size: number): string {
  const whole = Buffer.concat([Buffer.from(`blob ${size}\0`), Buffer.alloc(size, "x\n")]);
  const oid = createHash("sha1").update(whole).digest("hex");
  const objects = resolve(dir, gitIn(dir, ["rev-parse", "--git-path", "objects"]));
  mkdirSync(join(objects, oid.slice(0, 2)), { recursive: true });
  writeFileSync(join(objects, oid.slice(0, 2), oid.slice(2)), deflateSync(whole).subarray(0, 256));
  return oid;
}
