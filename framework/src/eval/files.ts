/**
 * The files a code provider would see under a root, for the BM25 baseline: text files
 * up to 1 MiB, no hidden files or directories (so never `.git`), no `node_modules`, no
 * symlinks — the defaults of the ripgrep and symbols plugins. Under a git work tree the
 * list is git's own (tracked and untracked, minus what .gitignore ignores).
 */
import { execFile } from "node:child_process";
import { lstatSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";

const execFileAsync = promisify(execFile);

/** The largest file read (the ripgrep and symbols plugins' default `maxFileSizeBytes`). */
export const MAX_FILE_BYTES = 1024 * 1024;

/** A text file under the root. */
export interface TextFile {
  /** Relative to the root, `/`-separated. */
  readonly path: string;
  readonly text: string;
}

const visible = (path: string) => path.split("/").every((part) => !part.startsWith(".") && part !== "node_modules");

/** Relative paths under `root` by walking it: no hidden entries, no node_modules, no symlinks. */
function walk(root: string): string[] {
  const found: string[] = [];
  const visit = (dir: string, prefix: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (!visible(entry.name)) continue;
      if (entry.isDirectory()) visit(join(dir, entry.name), `${prefix}${entry.name}/`);
      else if (entry.isFile()) found.push(`${prefix}${entry.name}`);
    }
  };
  visit(root, "");
  return found;
}

/** git's list of the files under `root` that .gitignore keeps, or undefined when `root` is not in a work tree. */
async function gitListed(root: string): Promise<string[] | undefined> {
  try {
    const { stdout } = await execFileAsync(
      "git",
      ["-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", "."],
      { maxBuffer: 256 * 1024 * 1024, encoding: "utf8" },
    );
    return stdout.split("\0").filter((path) => path !== "");
  } catch {
    return undefined;
  }
}

/**
 * The text files under `root`, sorted by path (so every run sees them in one order).
 * `useGit`: ask git for the list when `root` is in a work tree (labelled runs over a
 * checkout); mined trees are written from git already and are walked.
 */
export async function listTextFiles(root: string, useGit: boolean): Promise<TextFile[]> {
  const paths = ((useGit ? await gitListed(root) : undefined) ?? walk(root)).filter(visible);
  const files: TextFile[] = [];
  for (const path of [...new Set(paths)].sort()) {
    const full = join(root, path);
    let stat: ReturnType<typeof lstatSync>;
    try {
      stat = lstatSync(full);
    } catch {
      continue; // listed by git but deleted from the work tree
    }
    if (!stat.isFile() || stat.size > MAX_FILE_BYTES) continue;
    const bytes = readFileSync(full);
    if (bytes.subarray(0, 8000).includes(0)) continue; // binary, as rg decides it
    files.push({ path, text: bytes.toString("utf8") });
  }
  return files;
}
