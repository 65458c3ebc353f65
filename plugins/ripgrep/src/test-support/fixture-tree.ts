/**
 * Test support (not shipped): a fixture tree in a temp dir with everything the
 * ripgrep plugin must handle — ignored, hidden, binary, oversized, CRLF, non-UTF-8
 * and unicode files, a non-UTF-8 file name, symlinks that leave the root, a secret
 * outside the root — and a check that a frame's content and digest are exactly what
 * the file on disk holds.
 */
import { isUtf8 } from "node:buffer";
import { createHash } from "node:crypto";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** A fixture tree on disk. */
export interface FixtureTree {
  /** The temp dir holding `root/` and `outside/`. */
  readonly base: string;
  /** The root a provider is configured with. */
  readonly root: string;
  /** A directory beside the root: nothing in it may ever be read. */
  readonly outside: string;
  /** A word that appears only in files the plugin must never return (outside, ignored, hidden, binary, too big). */
  readonly forbidden: readonly string[];
  /** Where `pre.sh` writes if anything ever runs it (it must not exist after a test). */
  readonly marker: string;
  /** Removes the whole tree. */
  remove(): void;
}

/** The file name `n<0xFF>me-budget.txt`: not valid UTF-8. */
export const NON_UTF8_NAME = Buffer.concat([Buffer.from("n"), Buffer.from([0xff]), Buffer.from("me-budget.txt")]);

/** The bytes of the Latin-1 file: `café` with a bare 0xE9. */
export const LATIN1_BYTES = Buffer.concat([
  Buffer.from("// caf"),
  Buffer.from([0xe9]),
  Buffer.from(" budget in latin-1\nconst latinBudget = 1;\n"),
]);

const CONFIG_TS = `import { readFileSync } from "node:fs";

/** The token budget of one request. */
export interface BudgetConfig {
  maxTokens: number;
  maxFrames: number;
}

/** Reads and checks a config file. */
export function parseConfigFile(path: string): BudgetConfig {
  const raw = JSON.parse(readFileSync(path, "utf8"));
  if (typeof raw.maxTokens !== "number") throw new Error("maxTokens missing");
  return { maxTokens: raw.maxTokens, maxFrames: raw.maxFrames ?? 8 };
}

export function unrelatedHelper(): number {
  return 42;
}
`;

const PACKER_TS = `import type { BudgetConfig } from "./config.js";

/** Packs frames best first until the token budget is spent. */
export function packUnderBudget(sizes: number[], config: BudgetConfig): number[] {
  const taken: number[] = [];
  let left = config.maxTokens;
  for (const size of sizes) {
    if (size > left) continue;
    taken.push(size);
    left -= size;
  }
  return taken;
}
`;

/** Creates the fixture tree (see the module comment) under the OS temp dir. */
export function createFixtureTree(): FixtureTree {
  const base = mkdtempSync(join(tmpdir(), "ocp-ripgrep-"));
  const root = join(base, "root");
  const outside = join(base, "outside");
  const marker = join(outside, "pre-ran.marker");
  const file = (path: string, content: string | Buffer) => {
    const full = join(root, path);
    mkdirSync(join(full, ".."), { recursive: true });
    writeFileSync(full, content);
  };
  mkdirSync(outside, { recursive: true });
  mkdirSync(root, { recursive: true });

  writeFileSync(join(outside, "secret.txt"), "OUTSIDE_SECRET budget parseConfigFile --pre\n");
  file(".gitignore", "ignored/\n*.log\n");
  file(".ignore", "skipped-by-dot-ignore.ts\n");
  file("ignored/generated.ts", "export const IGNORED_BY_GITIGNORE = 'budget';\n");
  file("debug.log", "IGNORED_LOG budget\n");
  file("skipped-by-dot-ignore.ts", "export const IGNORED_BY_DOT_IGNORE = 'budget';\n");
  file(".hidden/settings.ts", "export const HIDDEN_SETTING = 'budget';\n");
  file(".git/config", "[core] GIT_INTERNALS budget\n");
  file("src/config.ts", CONFIG_TS);
  file("src/packer.ts", PACKER_TS);
  file("src/crlf.ts", "// windows line endings\r\nexport const crlfBudget = 1;\r\nexport const other = 2;\r\n");
  file(
    "docs/unicode.md",
    "# Größe und Budget\n\nDas Token-Budget (予算) gilt für jede Anfrage 🚀.\n\nΚείμενο: προϋπολογισμός\n",
  );
  file("src/latin1.txt", LATIN1_BYTES);
  writeFileSync(Buffer.concat([Buffer.from(`${join(root, "src")}/`), NON_UTF8_NAME]), "odd name budget here\n");
  file("assets/image.bin", Buffer.concat([Buffer.from("BINARY_FILE budget "), Buffer.alloc(64), Buffer.from("x\n")]));
  // Over the default 1 MiB size cap.
  file("data/huge.txt", `${"filler line without the word\n".repeat(80_000)}HUGE_FILE budget\n`);
  file("dist/app.min.js", `var a=${JSON.stringify("x".repeat(5000))};function MINIFIED_LINE(){return "budget"}\n`);
  file("no-newline.ts", "export const lastLineBudget = true; // no newline at the end");
  symlinkSync(join(outside, "secret.txt"), join(root, "link-to-secret.txt"));
  symlinkSync(outside, join(root, "link-to-outside"));
  file("pre.sh", `#!/bin/sh\necho ran > '${marker}'\ncat "$1"\n`);
  chmodSync(join(root, "pre.sh"), 0o755);

  return {
    base,
    root,
    outside,
    marker,
    forbidden: [
      "OUTSIDE_SECRET",
      "IGNORED_BY_GITIGNORE",
      "IGNORED_LOG",
      "IGNORED_BY_DOT_IGNORE",
      "HIDDEN_SETTING",
      "GIT_INTERNALS",
      "BINARY_FILE",
      "HUGE_FILE",
      "MINIFIED_LINE",
    ],
    remove: () => rmSync(base, { recursive: true, force: true }),
  };
}

/** The raw bytes of a `file:` URI's path (percent-escapes decoded byte by byte, so non-UTF-8 names survive). */
export function uriPathBytes(uri: string): Buffer {
  const url = new URL(uri);
  if (url.protocol !== "file:") throw new Error(`not a file URI: ${uri}`);
  const bytes: number[] = [];
  const path = url.pathname;
  for (let i = 0; i < path.length; i++) {
    if (path[i] === "%" && /^[0-9A-Fa-f]{2}$/.test(path.slice(i + 1, i + 3))) {
      bytes.push(Number.parseInt(path.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      bytes.push(...Buffer.from(path[i] as string, "utf8"));
    }
  }
  return Buffer.from(bytes);
}

/** A frame as far as {@link verifyAgainstDisk} needs it. */
export interface FileFrame {
  content: string;
  uri?: string;
  provenance: { range?: string; digest?: string }[];
}

/**
 * Re-reads the frame's line range from the file its URI names and checks that the
 * content is exactly those lines — their bytes, decoded as UTF-8 with U+FFFD for
 * invalid sequences (a no-op for UTF-8 files) — and that the digest is sha256 of
 * that text. Returns the lines read, for further checks.
 */
export function verifyAgainstDisk(frame: FileFrame): { path: Buffer; text: string } {
  if (frame.uri === undefined) throw new Error("frame has no uri");
  const path = uriPathBytes(frame.uri);
  if (isUtf8(path)) {
    // A URI of a UTF-8 path must also round-trip through Node's own parser.
    const viaNode = fileURLToPath(frame.uri);
    if (viaNode !== path.toString("utf8")) throw new Error(`uri decodes differently: ${viaNode}`);
  }
  const range = /^L(\d+)(?:-(\d+))?$/.exec(frame.provenance[0]?.range ?? "");
  if (range === null) throw new Error(`bad range '${frame.provenance[0]?.range}'`);
  const first = Number(range[1]);
  const last = Number(range[2] ?? range[1]);
  const bytes = readFileSync(path);
  const starts = [0];
  for (let i = bytes.indexOf(0x0a); i !== -1; i = bytes.indexOf(0x0a, i + 1)) starts.push(i + 1);
  if (starts[starts.length - 1] === bytes.length) starts.pop();
  const end = last < starts.length ? (starts[last] as number) : bytes.length;
  const text = bytes.subarray(starts[first - 1], end).toString("utf8");
  if (text !== frame.content) {
    throw new Error(
      `content differs from ${path} L${first}-${last}:\n${JSON.stringify(text)}\nvs\n${JSON.stringify(frame.content)}`,
    );
  }
  const digest = `sha256:${createHash("sha256").update(text, "utf8").digest("hex")}`;
  if (frame.provenance[0]?.digest !== digest) throw new Error(`digest ${frame.provenance[0]?.digest} is not ${digest}`);
  return { path, text };
}

/**
 * Writes, in `dir`, an executable that runs the real `rg` at `rgPath` with every
 * `--no-follow` turned into `--follow`, and, with `afterRun`, a shell command run
 * (in rg's working directory, the root) once rg is done. It stands in for rg losing
 * its own check-then-open race — a file swapped for a link between rg reading its
 * directory and opening it is read through the link — which no test can time: here
 * rg reads through every link, every time. Returns its path.
 */
export function linkFollowingRg(dir: string, rgPath: string, afterRun = ""): string {
  const path = join(dir, "rg-following-links.sh");
  const script = [
    "#!/bin/sh",
    "for arg do",
    "  shift",
    '  [ "$arg" = "--no-follow" ] && arg="--follow"',
    '  set -- "$@" "$arg"',
    "done",
    `'${rgPath}' "$@"`,
    "status=$?",
    afterRun,
    'exit "$status"',
    "",
  ].join("\n");
  writeFileSync(path, script);
  chmodSync(path, 0o755);
  return path;
}
