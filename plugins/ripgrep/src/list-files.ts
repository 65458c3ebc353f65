/**
 * Listing files the way the ripgrep plugin sees them — the same ignore rules, the
 * same confinement — for plugins that index files rather than search them.
 */
import { isUtf8 } from "node:buffer";
import { DEFAULTS, resolveRoot } from "./options.js";
import { listArgs } from "./rg-args.js";
import { findRipgrep } from "./rg-binary.js";
import { runRipgrep } from "./rg-run.js";

/** Options of {@link listFiles}. */
export interface ListFilesOptions {
  /** The directory to list. */
  root: string;
  /** Include hidden files and directories (never `.git`). Default false. */
  hidden?: boolean;
  /** Leave out files larger than this. Default 1 MiB, as the plugin. */
  maxFileSizeBytes?: number;
  /** Aborting stops the listing (rg is killed) and rejects with the signal's reason. */
  signal?: AbortSignal;
  /** The rg binary; default as the plugin finds it. */
  rgPath?: string;
}

/**
 * The files under `root` that the ripgrep plugin would search: root-relative paths
 * with `/` separators, sorted. It is `rg --files` with the plugin's rules —
 * `.gitignore`, `.ignore` and `.rgignore` respected (also outside a git checkout),
 * hidden files skipped unless `hidden`, files over `maxFileSizeBytes` skipped, and
 * symlinks never followed, so every path is a regular file inside the root.
 * Binary files are listed (telling them apart means reading them). Names that are
 * not valid UTF-8 are left out: a string could not name them faithfully.
 */
export async function listFiles(options: ListFilesOptions): Promise<string[]> {
  const { root } = resolveRoot(options.root, "listFiles");
  const maxFileSizeBytes = options.maxFileSizeBytes ?? DEFAULTS.maxFileSizeBytes;
  if (!Number.isSafeInteger(maxFileSizeBytes) || maxFileSizeBytes < 1) {
    throw new RangeError(`listFiles: maxFileSizeBytes must be a whole number ≥ 1, not ${maxFileSizeBytes}`);
  }
  const rg = await findRipgrep({ rgPath: options.rgPath });
  const chunks: Buffer[] = [];
  const run = await runRipgrep({
    rgPath: rg.path,
    args: listArgs({ hidden: options.hidden ?? false, maxFileSizeBytes }),
    cwd: root,
    signal: options.signal,
    onStdout: (chunk) => {
      chunks.push(chunk);
      return undefined;
    },
  });
  const output = Buffer.concat(chunks);
  const files: string[] = [];
  let start = 0;
  for (let end = output.indexOf(0, start); end !== -1; end = output.indexOf(0, start)) {
    const name = output.subarray(start, end);
    start = end + 1;
    if (!isUtf8(name)) continue;
    const path = name.toString("utf8").replace(/^\.\//, "");
    if (path !== "") files.push(process.platform === "win32" ? path.replaceAll("\\", "/") : path);
  }
  // Exit 2 with a listing means some directory could not be read; without one, rg itself failed.
  if (run.exitCode === 2 && files.length === 0) {
    throw new Error(`listFiles: ripgrep failed: ${run.stderr.split("\n")[0] ?? "unknown error"}`);
  }
  return files.sort();
}
