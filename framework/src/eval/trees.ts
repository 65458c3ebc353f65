/**
 * The trees cases are asked over: a commit's files written to a directory of their own,
 * exactly as stored in git (no eol or encoding conversion, no export-ignore), so the
 * provider under test and the BM25 baseline read the same bytes.
 *
 * Trees are cached by commit id for as long as a case still needs them and removed
 * after; with a work directory they are kept there and reused by the next run.
 */
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { ERROR_CODES, OcpError } from "../provider/errors.js";
import { BlobReader, git } from "./git.js";

/** Files are written in batches of at most this many files and bytes: enough to keep git busy, bounded in memory. */
const BATCH = { files: 128, bytes: 64 * 1024 * 1024 } as const;

/**
 * Files larger than this are left out of a tree, unread: no code provider reads them
 * (the reference plugins stop at 1 MiB by default), and a hostile repository could
 * otherwise have a tiny, well-compressed blob fill the disk and the memory.
 */
export const MAX_TREE_FILE_BYTES = 16 * 1024 * 1024;

/** A path from a git tree that is safe to write under a root: relative, no `..`, no empty segment. */
function safePath(path: string): boolean {
  return path !== "" && !path.startsWith("/") && path.split("/").every((part) => part !== "" && part !== "..");
}

/**
 * Writes the files of `commit` under `dir` (which must not exist yet). Regular files
 * only: symlinks, which may point anywhere, and submodules, which are other repositories,
 * are left out, and so are files over {@link MAX_TREE_FILE_BYTES} (by the size git
 * lists, before they are read). Returns how many files were written.
 */
export async function writeTree(repo: string, commit: string, dir: string, blobs: BlobReader): Promise<number> {
  const listing = await git(repo, ["ls-tree", "-r", "-z", "-l", "--full-tree", commit]);
  const files: { object: string; path: string; mode: string; size: number }[] = [];
  for (const entry of listing.split("\0")) {
    if (entry === "") continue;
    const tab = entry.indexOf("\t");
    // "<mode> <type> <object> <size, right-aligned>\t<path>"
    const [mode = "", type = "", object = "", size = ""] = entry.slice(0, tab).split(/ +/);
    const path = entry.slice(tab + 1);
    if (type !== "blob" || (mode !== "100644" && mode !== "100755") || !safePath(path)) continue;
    if (!/^\d+$/.test(size) || Number(size) > MAX_TREE_FILE_BYTES) continue;
    files.push({ object, path, mode, size: Number(size) });
  }
  mkdirSync(dir, { recursive: true });
  for (let start = 0; start < files.length; ) {
    let end = start + 1;
    let bytes = files[start]?.size ?? 0;
    while (end < files.length && end - start < BATCH.files && bytes + (files[end]?.size ?? 0) <= BATCH.bytes) {
      bytes += files[end]?.size ?? 0;
      end++;
    }
    const batch = files.slice(start, end);
    start = end;
    const contents = await Promise.all(batch.map((file) => blobs.read(file.object)));
    batch.forEach((file, index) => {
      const target = join(dir, file.path);
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, contents[index]?.content ?? Buffer.alloc(0), {
        mode: file.mode === "100755" ? 0o755 : 0o644,
      });
    });
  }
  return files.length;
}

/** Options of {@link TreeCache}. */
export interface TreeCacheOptions {
  /** Keep trees here between runs and reuse them; default a temporary directory removed by close(). */
  workDir?: string;
}

/** A materialized tree: its root (symlinks resolved) and a scratch directory for the provider (`{cache}`). */
export interface Tree {
  readonly root: string;
  readonly cache: string;
}

/** Temporary directories still to remove when the process exits (the CLI turns SIGINT and SIGTERM into an exit). */
const temporary = new Set<string>();
let exitHook = false;
/** Removes `dir` when the process exits, unless it is removed (and forgotten) before. */
export function removeAtExit(dir: string): void {
  temporary.add(dir);
  if (exitHook) return;
  exitHook = true;
  process.once("exit", () => {
    for (const left of temporary) rmSync(left, { recursive: true, force: true });
  });
}

/** Trees by commit id, written on first use and removed once no planned case needs them. */
export class TreeCache {
  readonly #repo: string;
  readonly #base: string;
  readonly #keep: boolean;
  readonly #uses = new Map<string, number>();
  readonly #blobs: BlobReader;

  constructor(repo: string, options: TreeCacheOptions = {}) {
    this.#repo = repo;
    this.#keep = options.workDir !== undefined;
    if (options.workDir !== undefined) mkdirSync(options.workDir, { recursive: true });
    this.#base = options.workDir ?? mkdtempSync(join(tmpdir(), "ocp-eval-"));
    if (!this.#keep) removeAtExit(this.#base);
    this.#blobs = new BlobReader(repo);
  }

  /** Says `commit` will be asked for once more; a tree is removed when its planned uses are done. */
  plan(commit: string): void {
    this.#uses.set(commit, (this.#uses.get(commit) ?? 0) + 1);
  }

  /** The tree of `commit`, written now if it is not there yet. */
  async acquire(commit: string): Promise<Tree> {
    if (!/^[0-9a-f]{7,64}$/.test(commit)) throw new OcpError(ERROR_CODES.EVAL, `not a commit id: '${commit}'`);
    const dir = join(this.#base, "trees", commit);
    const done = `${dir}.complete`;
    const cache = join(this.#base, "cache", commit);
    if (!existsSync(done)) {
      // A tree left half-written by an interrupted run is written again from scratch.
      rmSync(dir, { recursive: true, force: true });
      await writeTree(this.#repo, commit, dir, this.#blobs);
      writeFileSync(done, "");
    }
    mkdirSync(cache, { recursive: true });
    return { root: realpathSync(dir), cache: realpathSync(cache) };
  }

  /** Ends one use of `commit`'s tree; the last planned use removes it (unless kept in a work directory). */
  release(commit: string): void {
    const left = (this.#uses.get(commit) ?? 1) - 1;
    this.#uses.set(commit, left);
    if (left <= 0 && !this.#keep) this.#remove(commit);
  }

  #remove(commit: string): void {
    rmSync(join(this.#base, "trees", commit), { recursive: true, force: true });
    rmSync(join(this.#base, "trees", `${commit}.complete`), { force: true });
    rmSync(join(this.#base, "cache", commit), { recursive: true, force: true });
  }

  /** Stops git and removes every tree (the whole temporary directory), unless kept in a work directory. */
  async close(): Promise<void> {
    await this.#blobs.close();
    if (!this.#keep) {
      rmSync(this.#base, { recursive: true, force: true });
      temporary.delete(this.#base);
    }
  }
}
