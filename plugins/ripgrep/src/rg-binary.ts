/**
 * Finding the ripgrep binary: an explicit path, else the binary that ships in the
 * `@vscode/ripgrep` package (a registry package, no download), else `rg` on PATH.
 */
import { accessSync, constants, statSync } from "node:fs";
import { delimiter, join } from "node:path";

/** A ripgrep binary and where it was found. */
export interface RipgrepBinary {
  /** Absolute path of the executable. */
  readonly path: string;
  /** `option`: given explicitly; `@vscode/ripgrep`: the packaged binary; `PATH`: found on PATH. */
  readonly source: "option" | "@vscode/ripgrep" | "PATH";
}

/** Options of {@link findRipgrep}. */
export interface FindRipgrepOptions {
  /** Use this binary and nothing else. */
  rgPath?: string;
}

/** What {@link locateRipgrep} consults; injectable so the fallback order can be tested without uninstalling anything. */
export interface RipgrepSources {
  rgPath?: string;
  /** Resolves to the packaged binary's path, or rejects/undefined when the package or its binary is missing. */
  packaged(): Promise<string | undefined>;
  /** The PATH to search (`process.env.PATH` by default). */
  pathEnv: string | undefined;
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** The first executable `rg` on a PATH string, if any. */
export function rgOnPath(pathEnv: string | undefined): string | undefined {
  const names = process.platform === "win32" ? ["rg.exe", "rg"] : ["rg"];
  for (const dir of (pathEnv ?? "").split(delimiter)) {
    if (dir === "") continue;
    for (const name of names) {
      const candidate = join(dir, name);
      if (executable(candidate)) return candidate;
    }
  }
  return undefined;
}

/** Finds ripgrep from explicit sources; throws one error naming every place it looked. */
export async function locateRipgrep(sources: RipgrepSources): Promise<RipgrepBinary> {
  if (sources.rgPath !== undefined) {
    if (executable(sources.rgPath)) return { path: sources.rgPath, source: "option" };
    throw new Error(`ripgrep not found: rgPath '${sources.rgPath}' is not an executable file`);
  }
  let packagedProblem = "its platform binary is not installed";
  try {
    const packaged = await sources.packaged();
    if (packaged !== undefined && executable(packaged)) return { path: packaged, source: "@vscode/ripgrep" };
    if (packaged !== undefined) packagedProblem = `'${packaged}' is not executable`;
  } catch (error) {
    packagedProblem = error instanceof Error ? error.message : String(error);
  }
  const onPath = rgOnPath(sources.pathEnv);
  if (onPath !== undefined) return { path: onPath, source: "PATH" };
  throw new Error(
    "ripgrep not found: neither the binary of the @vscode/ripgrep package " +
      `(${packagedProblem}) nor an 'rg' on PATH. Install @vscode/ripgrep@1.18.0 with its optional ` +
      "dependencies, or ripgrep itself (apt install ripgrep, brew install ripgrep), or pass rgPath.",
  );
}

const found = new Map<string, Promise<RipgrepBinary>>();

/**
 * The ripgrep binary to run: `rgPath` if given, else `@vscode/ripgrep`'s, else `rg`
 * on PATH. Throws an error naming both places when neither has one. Memoized.
 */
export function findRipgrep(options: FindRipgrepOptions = {}): Promise<RipgrepBinary> {
  const key = `${options.rgPath ?? ""}\u0000${process.env.PATH ?? ""}`;
  let lookup = found.get(key);
  if (lookup === undefined) {
    lookup = locateRipgrep({
      rgPath: options.rgPath,
      // A dynamic import: the package throws at import time when its platform binary is missing.
      packaged: async () => ((await import("@vscode/ripgrep")) as { rgPath: string }).rgPath,
      pathEnv: process.env.PATH,
    });
    found.set(key, lookup);
    lookup.catch(() => found.delete(key)); // a failed lookup is retried next time (someone may install rg)
  }
  return lookup;
}
