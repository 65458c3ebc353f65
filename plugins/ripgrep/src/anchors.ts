/**
 * A query's anchors — the files a host has open and the symbols it mentions — as
 * ranking hints. Anchors are only ever compared with paths rg already returned:
 * nothing is read or even looked up for them, and an anchor that points outside the
 * root (`../x`, an absolute path elsewhere, a `file:` URI elsewhere) is ignored.
 */
import { isAbsolute, posix, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";

/** The usable anchors of a query. */
export interface Anchors {
  /** Root-relative paths of anchored files (`src/config.ts`). */
  readonly files: ReadonlySet<string>;
  /** Their directories (`src`; `.` for the root). */
  readonly dirs: ReadonlySet<string>;
  /** Directories anchored themselves (`src/`, with a trailing slash): everything under them is close. */
  readonly trees: ReadonlySet<string>;
  /** Symbol names (`parseConfig`, `Config.load`), matched as whole words in snippets. */
  readonly symbols: readonly string[];
  /** How many anchors were ignored because they lead outside the root. */
  readonly outside: number;
}

const SYMBOL = /^[\p{L}_$][\p{L}\p{N}_$]*(?:(?:\.|::|#|->)[\p{L}_$][\p{L}\p{N}_$]*)*(?:\(\))?$/u;
const MAX_ANCHOR_LENGTH = 1024;

/** Where a path anchor lands relative to the root: a clean relative path, or undefined if it leaves it. */
function insideRoot(anchor: string, roots: readonly string[]): string | undefined {
  if (anchor.startsWith("file:")) {
    try {
      return insideRoot(fileURLToPath(anchor), roots);
    } catch {
      return undefined;
    }
  }
  if (isAbsolute(anchor)) {
    for (const root of roots) {
      const rel = relative(root, anchor);
      if (rel === "") return ".";
      if (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel)) return rel.split(sep).join("/");
    }
    return undefined;
  }
  const normal = posix.normalize(anchor.replaceAll("\\", "/"));
  if (normal === ".." || normal.startsWith("../")) return undefined;
  return normal;
}

/**
 * Sorts a query's anchors into files, directories and symbols. `roots` are the root
 * as configured and as resolved (so an absolute anchor under either counts as inside).
 */
export function parseAnchors(anchors: readonly string[], roots: readonly string[]): Anchors {
  const files = new Set<string>();
  const dirs = new Set<string>();
  const trees = new Set<string>();
  const symbols = new Set<string>();
  let outside = 0;
  for (const raw of anchors) {
    const anchor = raw.trim();
    if (anchor === "" || anchor.length > MAX_ANCHOR_LENGTH) continue;
    const pathLike =
      /[/\\]/.test(anchor) ||
      anchor.startsWith("file:") ||
      anchor === "." ||
      anchor === ".." ||
      /\.[\p{L}\p{N}]{1,10}$/u.test(anchor);
    if (pathLike) {
      const rel = insideRoot(anchor, roots);
      if (rel === undefined) {
        outside++;
        continue;
      }
      if (/[/\\]$/.test(anchor) || rel === ".") {
        if (rel !== ".") trees.add(rel.replace(/\/$/, ""));
      } else {
        files.add(rel);
        dirs.add(posix.dirname(rel));
      }
    }
    // `config.ts` or `Config.load` may be a file or a symbol: it is tried as both.
    if (!/[/\\]/.test(anchor) && SYMBOL.test(anchor)) symbols.add(anchor.replace(/\(\)$/, ""));
  }
  return { files, dirs, trees, symbols: [...symbols].sort(), outside };
}

/** How close a file is to the anchors: 1 an anchored file, 0.5 beside one or under an anchored directory, else 0. */
export function proximity(path: string, anchors: Anchors): number {
  if (anchors.files.has(path)) return 1;
  if (anchors.dirs.has(posix.dirname(path))) return 0.5;
  for (const tree of anchors.trees) {
    if (path.startsWith(`${tree}/`)) return 0.5;
  }
  return 0;
}

/** A regex finding any anchor symbol as a whole word (its full text, or its last segment if 3+ characters). */
export function symbolRegExp(anchors: Anchors): RegExp | undefined {
  const names = new Set<string>();
  for (const symbol of anchors.symbols) {
    names.add(symbol);
    const last = symbol.split(/\.|::|#|->/).pop() ?? "";
    if ([...last].length >= 3) names.add(last);
  }
  if (names.size === 0) return undefined;
  const alternatives = [...names]
    .sort((a, b) => b.length - a.length || (a < b ? -1 : 1))
    .map((name) => name.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&"));
  return new RegExp(`(?<![\\p{L}\\p{N}_$])(?:${alternatives.join("|")})(?![\\p{L}\\p{N}_$])`, "u");
}
