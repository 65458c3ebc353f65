/**
 * Change notification for the indexed tree: one non-recursive `fs.watch` (inotify
 * on Linux) per directory that holds indexed files, and their ancestors up to the
 * root, so a new subdirectory is noticed too. Ignored trees (`node_modules`) are
 * never watched. Each event names a root-relative path (or the directory, when the
 * platform gives no name); the indexer decides what it means.
 */
import { type FSWatcher, watch } from "node:fs";
import { join } from "node:path";

/** Watches a set of directories under a root. */
export class DirectoryWatcher {
  private readonly watchers = new Map<string, FSWatcher>();
  private failed = false;

  /**
   * @param onPath called with the root-relative path an event is about, or `dir/` when the name is unknown
   * @param onFailure called once if watching stops working (too many watches, a platform without it)
   */
  constructor(
    private readonly root: string,
    private readonly onPath: (path: string) => void,
    private readonly onFailure: (error: Error) => void,
  ) {}

  /** Watches exactly `dirs` (root-relative, `""` for the root): new ones are added, gone ones closed. */
  sync(dirs: ReadonlySet<string>): void {
    if (this.failed) return;
    for (const [dir, watcher] of this.watchers) {
      if (!dirs.has(dir)) {
        watcher.close();
        this.watchers.delete(dir);
      }
    }
    for (const dir of dirs) {
      if (this.watchers.has(dir)) continue;
      try {
        const watcher = watch(join(this.root, dir), { persistent: false }, (_event, name) => {
          const prefix = dir === "" ? "" : `${dir}/`;
          // Windows names nested paths with backslashes; the index speaks `/`.
          this.onPath(name === null ? prefix : `${prefix}${name.toString().replaceAll("\\", "/")}`);
        });
        watcher.on("error", (error) => this.fail(error));
        this.watchers.set(dir, watcher);
      } catch (error) {
        // A directory removed since it was listed needs no watch; anything else means watching is out.
        if ((error as NodeJS.ErrnoException).code === "ENOENT") continue;
        this.fail(error as Error);
        return;
      }
    }
  }

  /** How many directories are watched. */
  get size(): number {
    return this.watchers.size;
  }

  private fail(error: Error): void {
    if (this.failed) return;
    this.failed = true;
    this.close();
    this.onFailure(error);
  }

  /** Stops watching. */
  close(): void {
    for (const watcher of this.watchers.values()) watcher.close();
    this.watchers.clear();
  }
}

/** Every directory holding one of `paths`, and every ancestor up to the root (`""`). */
export function directoriesOf(paths: Iterable<string>): Set<string> {
  const dirs = new Set<string>([""]);
  for (const path of paths) {
    for (let slash = path.lastIndexOf("/"); slash > 0; slash = path.lastIndexOf("/", slash - 1)) {
      const dir = path.slice(0, slash);
      if (dirs.has(dir)) break;
      dirs.add(dir);
    }
  }
  return dirs;
}
