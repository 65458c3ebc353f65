/**
 * A directory whose node_modules links every package this repository installed except
 * some: run node there with {@link NODE_PRESERVING_LINKS} and our packages resolve their
 * dependencies from it, so the missing ones are really missing.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO, runNode } from "./child.js";

/** Node, resolving from where a module's link is rather than where it points. */
export const NODE_PRESERVING_LINKS = [process.execPath, "--preserve-symlinks", "--preserve-symlinks-main"] as const;

/** An installation without `missing` (names under node_modules: a package or a scope). */
export interface Without {
  /** The directory; its node_modules holds the links. */
  readonly dir: string;
  /** Runs node (preserving links) with `args` in `dir`; never rejects. */
  node(args: string[]): Promise<{ code: number; stdout: string; stderr: string }>;
  /** Removes the directory. */
  remove(): void;
}

/** Links this repository's node_modules, except `missing`, into a new temporary directory. */
export function withoutPackages(prefix: string, missing: readonly string[]): Without {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const modules = join(dir, "node_modules");
  mkdirSync(modules);
  for (const entry of readdirSync(join(REPO, "node_modules"))) {
    if (missing.includes(entry) || entry === ".bin") continue;
    symlinkSync(join(REPO, "node_modules", entry), join(modules, entry), "dir");
  }
  return {
    dir,
    node: (args) =>
      runNode([...NODE_PRESERVING_LINKS.slice(1), ...args], { cwd: dir, env: { ...process.env, NO_COLOR: "1" } }),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
