/**
 * The root-confined reader against real files, real symlinks, a real FIFO, a real
 * hard link and a real second process that swaps files for links as fast as it can.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import {
  closeSync,
  fstatSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, posix } from "node:path";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { ERROR_CODES } from "../provider/errors.js";
import { resolvedLocationSync } from "./locate.js";
import { type ConfinedFile, FileRefusedError, isFileRefused, type ReadOptions, RootReader } from "./root-reader.js";

const made: string[] = [];
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const SECRET = "TOP-SECRET-outside-the-root\n";

/** A root with `src/users.py`, and beside it (outside) a directory holding a secret. */
function layout() {
  const base = realpathSync(mkdtempSync(join(tmpdir(), "ocp-root-reader-")));
  made.push(base);
  const root = join(base, "root");
  const outside = join(base, "outside");
  mkdirSync(join(root, "src"), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(root, "src/users.py"), "def users():\n    return []\n");
  writeFileSync(join(outside, "secret.py"), SECRET);
  return { base, root, outside, reader: new RootReader(root) };
}

type Read = (reader: RootReader, path: string, options?: ReadOptions) => Promise<ConfinedFile>;
const modes: [string, Read][] = [
  ["readFileSync", async (reader, path, options) => reader.readFileSync(path, options)],
  ["readFile", (reader, path, options) => reader.readFile(path, options)],
  [
    "openSync",
    async (reader, path, options) => {
      const file = reader.openSync(path, options);
      try {
        return { bytes: file.read(), stats: file.stats, realPath: file.realPath };
      } finally {
        file.close();
      }
    },
  ],
  [
    "open",
    async (reader, path, options) => {
      const file = await reader.open(path, options);
      try {
        return { bytes: await file.read(), stats: file.stats, realPath: file.realPath };
      } finally {
        await file.close();
      }
    },
  ],
];

async function refusal(read: Promise<unknown>): Promise<string> {
  const error = await read.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(FileRefusedError);
  return (error as FileRefusedError).code;
}

describe.each(modes)("RootReader.%s", (_name, read) => {
  it("reads a regular file under the root, with the fstat of what it read", async () => {
    const { root, reader } = layout();
    const file = await read(reader, "src/users.py");
    expect(file.bytes.toString()).toBe("def users():\n    return []\n");
    expect(file.stats.size).toBe(file.bytes.length);
    expect(file.realPath).toBe(join(root, "src/users.py"));
    expect((await read(reader, "src/../src/./users.py")).bytes.length).toBe(file.bytes.length);
  });

  it("refuses paths that leave the root as written: .., absolute, empty, NUL", async () => {
    const { reader, outside } = layout();
    for (const path of [
      "..",
      "../outside/secret.py",
      "src/../../outside/secret.py",
      join(outside, "secret.py"),
      "",
      "a\0b",
    ]) {
      expect(await refusal(read(reader, path))).toBe(ERROR_CODES.OUTSIDE_ROOT);
    }
  });

  it("refuses a final-component symlink wherever it points: outside, inside, nowhere", async () => {
    const { root, outside, reader } = layout();
    symlinkSync(join(outside, "secret.py"), join(root, "src/out.py"));
    symlinkSync(join(root, "src/users.py"), join(root, "src/in.py"));
    symlinkSync(join(root, "src/missing.py"), join(root, "src/dangling.py"));
    for (const path of ["src/out.py", "src/in.py", "src/dangling.py"]) {
      expect(await refusal(read(reader, path))).toBe(ERROR_CODES.SYMLINK);
    }
  });

  it("refuses a file reached through a linked directory that points outside; one pointing inside is fine", async () => {
    const { root, outside, reader } = layout();
    symlinkSync(outside, join(root, "linked"));
    symlinkSync(join(root, "src"), join(root, "alias"));
    expect(await refusal(read(reader, "linked/secret.py"))).toBe(ERROR_CODES.OUTSIDE_ROOT);
    expect((await read(reader, "alias/users.py")).realPath).toBe(join(root, "src/users.py"));
  });

  it("refuses a directory, a FIFO (without hanging on it) and a file over maxBytes", async () => {
    const { root, reader } = layout();
    execFileSync("mkfifo", [join(root, "src/pipe.py")]);
    expect(await refusal(read(reader, "src"))).toBe(ERROR_CODES.NOT_A_FILE);
    expect(await refusal(read(reader, "."))).toBe(ERROR_CODES.NOT_A_FILE);
    expect(await refusal(read(reader, "src/pipe.py"))).toBe(ERROR_CODES.NOT_A_FILE);
    expect(await refusal(read(reader, "src/users.py", { maxBytes: 5 }))).toBe(ERROR_CODES.FILE_TOO_LARGE);
    const size = readFileSync(join(root, "src/users.py")).length;
    expect(await refusal(read(reader, "src/users.py", { maxBytes: size - 1 }))).toBe(ERROR_CODES.FILE_TOO_LARGE);
    expect((await read(reader, "src/users.py", { maxBytes: size })).bytes.length).toBe(size);
  });

  it("passes ordinary I/O errors through as Node's own (ENOENT), not as refusals", async () => {
    const { reader } = layout();
    const error = await read(reader, "src/nothing.py").catch((thrown: unknown) => thrown);
    expect(isFileRefused(error)).toBe(false);
    expect((error as NodeJS.ErrnoException).code).toBe("ENOENT");
  });

  it("serves a hard link: it is a file in the root, by every test a path can make", async () => {
    const { root, outside, reader } = layout();
    linkSync(join(outside, "secret.py"), join(root, "src/hard.py"));
    expect((await read(reader, "src/hard.py")).bytes.toString()).toBe(SECRET);
  });
});

describe("RootReader", () => {
  it("opens a file whose name is not UTF-8 by its exact bytes, and refuses a link so named", async () => {
    const { root, outside, reader } = layout();
    const name = Buffer.concat([Buffer.from("src/n"), Buffer.from([0xff]), Buffer.from("me.py")]);
    const link = Buffer.concat([Buffer.from("src/l"), Buffer.from([0xfe]), Buffer.from("nk.py")]);
    writeFileSync(Buffer.concat([Buffer.from(`${root}/`), name]), "bytes\n");
    symlinkSync(join(outside, "secret.py"), Buffer.concat([Buffer.from(`${root}/`), link]));
    expect(reader.readFileSync(name).bytes.toString()).toBe("bytes\n");
    expect((await reader.readFile(name)).bytes.toString()).toBe("bytes\n");
    expect(await refusal(reader.readFile(link))).toBe(ERROR_CODES.SYMLINK);
    // The same name as (lossy) text names another file, which does not exist.
    expect(() => reader.readFileSync(name.toString())).toThrow(/ENOENT/);
  });

  it("reads a byte range from the verified descriptor, sync and async", async () => {
    const { reader } = layout();
    const sync = reader.openSync("src/users.py");
    const handle = await reader.open("src/users.py");
    try {
      expect(sync.readAt(4, 5).toString()).toBe("users");
      expect((await handle.readAt(4, 5)).toString()).toBe("users");
      expect(sync.readAt(20, 100).toString()).toBe("urn []\n");
      expect((await handle.readAt(1000, 10)).length).toBe(0);
      expect(() => sync.readAt(-1, 2)).toThrow(RangeError);
    } finally {
      sync.close();
      sync.close();
      await handle.close();
    }
    expect(() => sync.read()).toThrow(/closed/);
  });

  it("resolves a root given through a symlink to its real path once", () => {
    const { base, root } = layout();
    symlinkSync(root, join(base, "via-link"));
    const reader = new RootReader(join(base, "via-link"));
    expect(reader.root).toBe(root);
    expect(reader.readFileSync("src/users.py").realPath).toBe(join(root, "src/users.py"));
  });

  it("never resolves a path it does not refuse to a place outside the root (property)", () => {
    const { root, reader } = layout();
    const segment = fc.constantFrom("..", ".", "a", "b", "", "...", "..a", "a\\..");
    fc.assert(
      fc.property(fc.array(segment, { minLength: 1, maxLength: 8 }), (segments) => {
        const path = segments.join("/");
        const normal = posix.normalize(path);
        const climbs = path === "" || normal === ".." || normal.startsWith("../") || posix.isAbsolute(path);
        try {
          const absolute = reader.resolve(path);
          expect(climbs).toBe(false);
          expect(absolute === root || absolute.startsWith(`${root}/`)).toBe(true);
        } catch (error) {
          expect((error as FileRefusedError).code).toBe(ERROR_CODES.OUTSIDE_ROOT);
          expect(climbs).toBe(true);
        }
      }),
    );
  });

  it("without /proc, locates a file by resolving its path and matching the opened inode", () => {
    const { root, outside } = layout();
    symlinkSync(outside, join(root, "linked"));
    const fd = openSync(join(root, "src/users.py"), "r");
    try {
      const opened = fstatSync(fd);
      const at = (path: string, stats = opened) =>
        resolvedLocationSync(Buffer.from(join(root, path)), stats)?.toString();
      expect(at("src/users.py")).toBe(join(root, "src/users.py"));
      // The path now names another file than the one opened: no location.
      writeFileSync(join(root, "src/other.py"), "x\n");
      expect(at("src/other.py")).toBeUndefined();
      // Through a linked directory the real path is outside, which the reader refuses.
      const secret = openSync(join(root, "linked/secret.py"), "r");
      expect(at("linked/secret.py", fstatSync(secret))).toBe(join(outside, "secret.py"));
      closeSync(secret);
    } finally {
      closeSync(fd);
    }
    expect(lstatSync(join(root, "linked")).isSymbolicLink()).toBe(true);
  });
});

/**
 * A second process swapping, as fast as it can, `race/file.py` between a regular
 * file and a symlink to the secret, and `dir` between a real directory and a link
 * to an outside one holding a `file.py` with the secret.
 */
const SWAPPER = `
const { renameSync, symlinkSync, writeFileSync, rmSync } = require("node:fs");
const [root, outside] = process.argv.slice(1);
const j = (...p) => require("node:path").join(...p);
for (;;) {
  try {
    symlinkSync(j(outside, "secret.py"), j(root, "race/tmp-link"));
    renameSync(j(root, "race/tmp-link"), j(root, "race/file.py"));
    writeFileSync(j(root, "race/tmp-file"), "INSIDE\\n");
    renameSync(j(root, "race/tmp-file"), j(root, "race/file.py"));
    renameSync(j(root, "dir"), j(root, "dir-parked"));
    renameSync(j(root, "dir-link"), j(root, "dir"));
    renameSync(j(root, "dir"), j(root, "dir-link"));
    renameSync(j(root, "dir-parked"), j(root, "dir"));
  } catch (error) {
    process.stderr.write(String(error) + "\\n");
    process.exit(1);
  }
}
`;

function startSwapper() {
  const { root, outside, reader } = layout();
  mkdirSync(join(root, "race"));
  writeFileSync(join(root, "race/file.py"), "INSIDE\n");
  mkdirSync(join(root, "dir"));
  writeFileSync(join(root, "dir/file.py"), "INSIDE\n");
  mkdirSync(join(outside, "dir"));
  writeFileSync(join(outside, "dir/file.py"), SECRET);
  symlinkSync(join(outside, "dir"), join(root, "dir-link"));
  const child = spawn(process.execPath, ["-e", SWAPPER, root, outside], { stdio: ["ignore", "ignore", "inherit"] });
  children.push(child);
  return { root, reader };
}

/** What a read of `path` gave: its text, or the code it failed with. */
type Outcome = string;

/** Reads until `enough` or `ms` have passed (a loaded 2-core machine can starve the swapper for a while). */
async function raceReads(
  read: () => Outcome,
  enough: (seen: Map<Outcome, number>) => boolean,
  ms = 20_000,
): Promise<Map<Outcome, number>> {
  const seen = new Map<Outcome, number>();
  const deadline = Date.now() + ms;
  for (let round = 0; Date.now() < deadline && !enough(seen); round++) {
    const outcome = read();
    seen.set(outcome, (seen.get(outcome) ?? 0) + 1);
    // Let the swapper's process get the core now and then on a loaded machine.
    if (round % 200 === 0) await new Promise((resume) => setTimeout(resume, 1));
  }
  return seen;
}

function outcomeOf(read: () => Buffer): Outcome {
  try {
    return read().toString();
  } catch (error) {
    return (error as { code?: string }).code ?? String(error);
  }
}

describe("RootReader under a concurrent swapper (a real second process)", () => {
  it("a naive check-then-read leaks the secret under this swapper (the control)", async () => {
    const { root } = startSwapper();
    const naive = (path: string) => () => {
      const absolute = join(root, path);
      if (lstatSync(absolute).isSymbolicLink() || !realpathSync(absolute).startsWith(`${root}/`)) {
        throw Object.assign(new Error("refused"), { code: "REFUSED" });
      }
      return readFileSync(absolute);
    };
    const leaked = (seen: Map<Outcome, number>) => seen.has(SECRET);
    expect(leaked(await raceReads(() => outcomeOf(naive("race/file.py")), leaked, 50_000))).toBe(true);
    expect(leaked(await raceReads(() => outcomeOf(naive("dir/file.py")), leaked, 50_000))).toBe(true);
  }, 120_000);

  it.each([
    ["a final component swapped for a symlink", "race/file.py", ERROR_CODES.SYMLINK],
    ["a directory swapped for a link to outside", "dir/file.py", ERROR_CODES.OUTSIDE_ROOT],
  ])(
    "never returns the secret for %s, though the race is live",
    async (_what, path, code) => {
      const { reader } = startSwapper();
      // Enough of both outcomes to show the swap was live while it read, then a good many more reads.
      let reads = 0;
      const seen = await raceReads(
        () => {
          reads++;
          return outcomeOf(() => reader.readFileSync(path).bytes);
        },
        (outcomes) => reads >= 4000 && (outcomes.get("INSIDE\n") ?? 0) > 0 && (outcomes.get(code) ?? 0) > 0,
        50_000,
      );
      expect(seen.has(SECRET)).toBe(false);
      expect(seen.get("INSIDE\n")).toBeGreaterThan(0);
      expect(seen.get(code)).toBeGreaterThan(0);
      for (const outcome of seen.keys())
        expect(["INSIDE\n", code, "ENOENT", ERROR_CODES.OUTSIDE_ROOT]).toContain(outcome);
    },
    120_000,
  );
});
