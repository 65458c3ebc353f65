/**
 * `ocp-provider/fs`: the root-confined file reader. Every read of a file under a
 * provider's root goes through a {@link RootReader}, so that no path — a `..`, a
 * symlink a `git pull` just created, a directory swapped for a link mid-read —
 * makes a provider serve a file outside its root.
 *
 * How one read is confined:
 * 1. The path is checked as written: root-relative, no NUL, no `..` climbing out.
 * 2. It is opened with `O_NOFOLLOW`, so a final-component symlink fails the open
 *    itself (there is no check-then-open window to race), and `O_NONBLOCK`, so a
 *    FIFO swapped in cannot hang the open.
 * 3. The file actually opened is then located: on Linux the kernel names it
 *    (`/proc/self/fd/N`), and that name must lie under the root's real path. This
 *    catches a linked intermediate directory however late it was swapped in, since
 *    the name is of the open file, not of the path.
 * 4. `fstat` on the same descriptor: a regular file, within the size bound.
 * 5. The bytes are read from that descriptor, never by path again.
 *
 * Without `/proc` (macOS, Windows, a container without it) step 3 resolves the path
 * and compares its inode with the descriptor's: a refusal still stops every static
 * link, but a swap timed between the open and the comparison is not provably caught.
 * A hard link is a file in the root like any other and is read (see docs).
 */
import { constants as bufferConstants } from "node:buffer";
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readSync,
  realpathSync,
  type Stats,
  statSync,
} from "node:fs";
import { type FileHandle, lstat, open } from "node:fs/promises";
import { isAbsolute, join, normalize, resolve, sep } from "node:path";
import { ERROR_CODES, OcpError } from "../provider/errors.js";
import { locate, locateSync, resolvedLocation, resolvedLocationSync } from "./locate.js";

/** The codes a {@link FileRefusedError} carries. */
export type RefusalCode =
  | typeof ERROR_CODES.OUTSIDE_ROOT
  | typeof ERROR_CODES.SYMLINK
  | typeof ERROR_CODES.NOT_A_FILE
  | typeof ERROR_CODES.FILE_TOO_LARGE;

/**
 * A read the reader refused: the file is outside the root, a symlink, not a regular
 * file, or too large. A plugin skips such a file (and may warn); it never serves it.
 * Ordinary I/O failures (`ENOENT`, `EACCES`) are thrown as Node's own errors.
 */
export class FileRefusedError extends OcpError {
  /** The path as it was asked for, relative to the root. */
  readonly path: string;
  constructor(code: RefusalCode, path: string, message: string) {
    super(code, `${JSON.stringify(path)} ${message}`);
    this.name = "FileRefusedError";
    this.path = path;
  }
}

/** True for a {@link FileRefusedError}: the file was refused rather than missing or unreadable. */
export function isFileRefused(error: unknown): error is FileRefusedError {
  return error instanceof FileRefusedError;
}

/** Options of one read. */
export interface ReadOptions {
  /** Refuse (`OCP_ERR_FILE_TOO_LARGE`) a file larger than this many bytes. Default: the largest Buffer less one. */
  maxBytes?: number;
}

/** A file read through the reader: its bytes and the `fstat` of the very descriptor they came from. */
export interface ConfinedFile {
  readonly bytes: Buffer;
  readonly stats: Stats;
  /** Where the opened file is, as the kernel names it (or as resolved, without `/proc`). */
  readonly realPath: string;
}

/** A verified open file: check its `stats` first, then read it or not; always close it. */
export interface OpenedFile {
  /** The path as asked for, relative to the root. */
  readonly path: string;
  /** Where the opened file is. */
  readonly realPath: string;
  /** `fstat` of the open descriptor. */
  readonly stats: Stats;
  /** The whole file, read from the verified descriptor. */
  read(): Buffer;
  /** Closes the descriptor; safe to call twice. */
  close(): void;
}

const MAX_BYTES = bufferConstants.MAX_LENGTH - 1;
/** `O_NOFOLLOW` is POSIX; Windows has none, and there the path is checked with lstat first. */
const NOFOLLOW = constants.O_NOFOLLOW;
const FLAGS = constants.O_RDONLY | (NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/** Reads files under one root, and only there (see the module comment). */
export class RootReader {
  /** The root's real path (symlinks resolved): everything read lies under it. */
  readonly root: string;
  readonly #prefix: string;

  /** @param root the directory to confine reads to; resolved to its real path once, now */
  constructor(root: string) {
    this.root = realpathSync.native(resolve(root));
    if (!statSync(this.root).isDirectory()) throw new Error(`root '${root}' is not a directory`);
    this.#prefix = this.root.endsWith(sep) ? this.root : `${this.root}${sep}`;
  }

  /** The absolute path of root-relative `path`, checked as written (throws `OCP_ERR_OUTSIDE_ROOT`). */
  resolve(path: string): string {
    if (typeof path !== "string" || path === "" || path.includes("\0")) {
      throw new FileRefusedError(ERROR_CODES.OUTSIDE_ROOT, String(path), "names no file under the root");
    }
    if (isAbsolute(path) || (process.platform === "win32" && /^[a-zA-Z]:/.test(path))) {
      throw new FileRefusedError(ERROR_CODES.OUTSIDE_ROOT, path, "is absolute: paths are relative to the root");
    }
    const normal = normalize(path);
    if (normal === ".." || normal.startsWith(`..${sep}`)) {
      throw new FileRefusedError(ERROR_CODES.OUTSIDE_ROOT, path, "climbs out of the root");
    }
    return join(this.root, normal);
  }

  /** True if `absolute` (a real path) is the root or lies under it. */
  contains(absolute: string): boolean {
    return absolute === this.root || absolute.startsWith(this.#prefix);
  }

  /** Opens and verifies `path`; the caller reads it or not, and closes it. */
  openSync(path: string, options: ReadOptions = {}): OpenedFile {
    const maxBytes = maxBytesOf(options);
    const absolute = this.resolve(path);
    if (NOFOLLOW === undefined && lstatSync(absolute).isSymbolicLink()) throw symlink(path);
    let fd: number;
    try {
      fd = openSync(absolute, FLAGS);
    } catch (error) {
      throw openError(error, path);
    }
    try {
      const stats = fstatSync(fd);
      const realPath = this.#verify(path, stats, locateSync(fd) ?? resolvedLocationSync(absolute, stats));
      checkStats(path, stats, maxBytes);
      return openedFile(fd, path, realPath, stats, maxBytes);
    } catch (error) {
      closeSync(fd);
      throw error;
    }
  }

  /** Reads `path` whole, synchronously (for worker threads and hot synchronous paths). */
  readFileSync(path: string, options: ReadOptions = {}): ConfinedFile {
    const file = this.openSync(path, options);
    try {
      return { bytes: file.read(), stats: file.stats, realPath: file.realPath };
    } finally {
      file.close();
    }
  }

  /** Reads `path` whole, without blocking the event loop. */
  async readFile(path: string, options: ReadOptions = {}): Promise<ConfinedFile> {
    const maxBytes = maxBytesOf(options);
    const absolute = this.resolve(path);
    if (NOFOLLOW === undefined && (await lstat(absolute)).isSymbolicLink()) throw symlink(path);
    let handle: FileHandle;
    try {
      handle = await open(absolute, FLAGS);
    } catch (error) {
      throw openError(error, path);
    }
    try {
      const stats = await handle.stat();
      const realPath = this.#verify(
        path,
        stats,
        (await locate(handle.fd)) ?? (await resolvedLocation(absolute, stats)),
      );
      checkStats(path, stats, maxBytes);
      return { bytes: await readAll(handle, path, stats, maxBytes), stats, realPath };
    } finally {
      await handle.close();
    }
  }

  /** Checks where the opened file is (`null`: replaced while it was opened); returns its real path. */
  #verify(path: string, stats: Stats, realPath: string | null): string {
    // Unlinked since it was opened: the name the kernel gives is stale, and nothing is there to serve.
    if (stats.nlink === 0) throw vanished(path);
    if (realPath === null) {
      throw new FileRefusedError(ERROR_CODES.OUTSIDE_ROOT, path, "was replaced while it was opened");
    }
    if (!this.contains(realPath)) {
      throw new FileRefusedError(
        ERROR_CODES.OUTSIDE_ROOT,
        path,
        "resolves outside the root (through a linked directory)",
      );
    }
    return realPath;
  }
}

function maxBytesOf(options: ReadOptions): number {
  const maxBytes = options.maxBytes ?? MAX_BYTES;
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 0 || maxBytes > MAX_BYTES) {
    throw new RangeError(`maxBytes must be a whole number from 0 to ${MAX_BYTES}, not ${maxBytes}`);
  }
  return maxBytes;
}

function symlink(path: string): FileRefusedError {
  return new FileRefusedError(ERROR_CODES.SYMLINK, path, "is a symbolic link: links are not followed");
}

function vanished(path: string): Error {
  return Object.assign(new Error(`ENOENT: ${JSON.stringify(path)} was removed while it was opened`), {
    code: "ENOENT",
  });
}

/** A failed open: a final-component symlink shows as ELOOP (Linux, macOS) or EMLINK (FreeBSD). */
function openError(error: unknown, path: string): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  return code === "ELOOP" || code === "EMLINK" ? symlink(path) : error;
}

function checkStats(path: string, stats: Stats, maxBytes: number): void {
  if (!stats.isFile()) throw new FileRefusedError(ERROR_CODES.NOT_A_FILE, path, "is not a regular file");
  if (stats.size > maxBytes) {
    throw new FileRefusedError(ERROR_CODES.FILE_TOO_LARGE, path, `is larger than ${maxBytes} bytes`);
  }
}

function tooLarge(path: string, maxBytes: number): FileRefusedError {
  return new FileRefusedError(ERROR_CODES.FILE_TOO_LARGE, path, `grew past ${maxBytes} bytes while it was read`);
}

function openedFile(fd: number, path: string, realPath: string, stats: Stats, maxBytes: number): OpenedFile {
  let open = true;
  return {
    path,
    realPath,
    stats,
    read() {
      if (!open) throw new Error(`${JSON.stringify(path)} is closed`);
      return readAllSync(fd, path, stats, maxBytes);
    },
    close() {
      if (!open) return;
      open = false;
      closeSync(fd);
    },
  };
}

/** Room for the whole file as fstat saw it and one byte more, so growth shows at once. */
function initialBuffer(stats: Stats, maxBytes: number): Buffer {
  return Buffer.allocUnsafe(Math.min(stats.size, maxBytes) + 1);
}

function grown(buffer: Buffer, length: number, path: string, maxBytes: number): Buffer {
  if (length > maxBytes) throw tooLarge(path, maxBytes);
  const bigger = Buffer.allocUnsafe(Math.min(Math.max(2 * buffer.length, 8192), maxBytes + 1));
  buffer.copy(bigger, 0, 0, length);
  return bigger;
}

function readAllSync(fd: number, path: string, stats: Stats, maxBytes: number): Buffer {
  let buffer = initialBuffer(stats, maxBytes);
  let length = 0;
  for (;;) {
    if (length === buffer.length) buffer = grown(buffer, length, path, maxBytes);
    const read = readSync(fd, buffer, length, buffer.length - length, length);
    if (read === 0) break;
    length += read;
  }
  if (length > maxBytes) throw tooLarge(path, maxBytes);
  return buffer.subarray(0, length);
}

async function readAll(handle: FileHandle, path: string, stats: Stats, maxBytes: number): Promise<Buffer> {
  let buffer = initialBuffer(stats, maxBytes);
  let length = 0;
  for (;;) {
    if (length === buffer.length) buffer = grown(buffer, length, path, maxBytes);
    const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
    if (bytesRead === 0) break;
    length += bytesRead;
  }
  if (length > maxBytes) throw tooLarge(path, maxBytes);
  return buffer.subarray(0, length);
}
