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
 * Paths may be strings or bytes (a `Buffer`, for a file name that is not UTF-8); they
 * are handled as bytes throughout, so such a name is opened and compared exactly.
 *
 * Without `/proc` (macOS, Windows, a container without it) step 3 resolves the path
 * and compares its inode with the descriptor's: a refusal still stops every static
 * link, but a swap timed between the open and the comparison is not provably caught.
 * A hard link is a file in the root like any other and is read (see docs).
 */
import { constants as bufferConstants } from "node:buffer";
import { closeSync, constants, fstatSync, lstatSync, openSync, realpathSync, type Stats, statSync } from "node:fs";
import { type FileHandle, lstat, open } from "node:fs/promises";
import { resolve, sep } from "node:path";
import { ERROR_CODES, OcpError } from "../provider/errors.js";
import { readAll, readAllSync, readAt, readAtSync } from "./fd-read.js";
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
  /** The path as it was asked for, relative to the root (bytes that are not UTF-8 shown as U+FFFD). */
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

/** A root-relative path: text, or the exact bytes of a name that is not UTF-8. */
export type RootPath = string | Uint8Array;

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

/** A verified open file: check its `stats` first, then read it (or part of it) or not; always close it. */
export interface OpenedFile {
  /** The path as asked for, relative to the root. */
  readonly path: string;
  /** Where the opened file is. */
  readonly realPath: string;
  /** `fstat` of the open descriptor. */
  readonly stats: Stats;
  /** The whole file, read from the verified descriptor (within `maxBytes`). */
  read(): Buffer;
  /** Up to `length` bytes at byte `position` (fewer at end of file), from the verified descriptor. */
  readAt(position: number, length: number): Buffer;
  /** Closes the descriptor; safe to call twice. */
  close(): void;
}

/** {@link OpenedFile}, read without blocking the event loop. */
export interface OpenedFileAsync {
  readonly path: string;
  readonly realPath: string;
  readonly stats: Stats;
  read(): Promise<Buffer>;
  readAt(position: number, length: number): Promise<Buffer>;
  close(): Promise<void>;
}

const MAX_BYTES = bufferConstants.MAX_LENGTH - 1;
/** `O_NOFOLLOW` is POSIX; Windows has none, and there the path is checked with lstat first. */
const NOFOLLOW = constants.O_NOFOLLOW;
const FLAGS = constants.O_RDONLY | (NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);
const WINDOWS = process.platform === "win32";
const SLASH = 0x2f;
const BACKSLASH = 0x5c;

/** Reads files under one root, and only there (see the module comment). */
export class RootReader {
  /** The root's real path (symlinks resolved): everything read lies under it. */
  readonly root: string;
  readonly #rootBytes: Buffer;
  readonly #prefix: Buffer;

  /** @param root the directory to confine reads to; resolved to its real path once, now */
  constructor(root: string) {
    const absolute = resolve(root);
    this.#rootBytes = realpathSync.native(absolute, { encoding: "buffer" });
    this.root = this.#rootBytes.toString();
    if (!statSync(this.#rootBytes).isDirectory()) throw new Error(`root '${root}' is not a directory`);
    this.#prefix = this.root.endsWith(sep) ? this.#rootBytes : Buffer.concat([this.#rootBytes, Buffer.from(sep)]);
  }

  /** The absolute path of root-relative `path`, checked as written (throws `OCP_ERR_OUTSIDE_ROOT`); for display. */
  resolve(path: RootPath): string {
    return this.#absolute(path).toString();
  }

  /** True if `absolute` (a real path) is the root or lies under it. */
  contains(absolute: string | Uint8Array): boolean {
    const bytes = typeof absolute === "string" ? Buffer.from(absolute) : Buffer.from(absolute);
    return bytes.equals(this.#rootBytes) || (bytes.length > this.#prefix.length && startsWith(bytes, this.#prefix));
  }

  /** Opens and verifies `path`; the caller reads it (or part of it) or not, and closes it. */
  openSync(path: RootPath, options: ReadOptions = {}): OpenedFile {
    const maxBytes = maxBytesOf(options);
    const shown = display(path);
    const absolute = this.#absolute(path);
    if (NOFOLLOW === undefined && lstatSync(absolute).isSymbolicLink()) throw symlink(shown);
    let fd: number;
    try {
      fd = openSync(absolute, FLAGS);
    } catch (error) {
      throw openError(error, shown);
    }
    try {
      const stats = fstatSync(fd);
      const realPath = this.#verify(shown, stats, locateSync(fd) ?? resolvedLocationSync(absolute, stats));
      checkStats(shown, stats, maxBytes);
      return syncFile(fd, shown, realPath, stats, maxBytes);
    } catch (error) {
      closeSync(fd);
      throw error;
    }
  }

  /** {@link openSync}, without blocking the event loop. */
  async open(path: RootPath, options: ReadOptions = {}): Promise<OpenedFileAsync> {
    const maxBytes = maxBytesOf(options);
    const shown = display(path);
    const absolute = this.#absolute(path);
    if (NOFOLLOW === undefined && (await lstat(absolute)).isSymbolicLink()) throw symlink(shown);
    let handle: FileHandle;
    try {
      handle = await open(absolute, FLAGS);
    } catch (error) {
      throw openError(error, shown);
    }
    try {
      const stats = await handle.stat();
      const located = (await locate(handle.fd)) ?? (await resolvedLocation(absolute, stats));
      const realPath = this.#verify(shown, stats, located);
      checkStats(shown, stats, maxBytes);
      return asyncFile(handle, shown, realPath, stats, maxBytes);
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  /** Reads `path` whole, synchronously (for worker threads and hot synchronous paths). */
  readFileSync(path: RootPath, options: ReadOptions = {}): ConfinedFile {
    const file = this.openSync(path, options);
    try {
      return { bytes: file.read(), stats: file.stats, realPath: file.realPath };
    } finally {
      file.close();
    }
  }

  /** Reads `path` whole, without blocking the event loop. */
  async readFile(path: RootPath, options: ReadOptions = {}): Promise<ConfinedFile> {
    const file = await this.open(path, options);
    try {
      return { bytes: await file.read(), stats: file.stats, realPath: file.realPath };
    } finally {
      await file.close();
    }
  }

  /**
   * `path` under the root as bytes, normalised as written: empty and `.` segments
   * dropped, a `..` taking back the segment before it and never climbing past the root.
   */
  #absolute(path: RootPath): Buffer {
    const shown = display(path);
    const bytes = typeof path === "string" ? Buffer.from(path) : Buffer.from(path);
    if (bytes.length === 0 || bytes.includes(0)) {
      throw new FileRefusedError(ERROR_CODES.OUTSIDE_ROOT, shown, "names no file under the root");
    }
    const drive = WINDOWS && bytes.length >= 2 && bytes[1] === 0x3a; // "C:"
    if (bytes[0] === SLASH || (WINDOWS && bytes[0] === BACKSLASH) || drive) {
      throw new FileRefusedError(ERROR_CODES.OUTSIDE_ROOT, shown, "is absolute: paths are relative to the root");
    }
    const segments: Buffer[] = [];
    let start = 0;
    for (let at = 0; at <= bytes.length; at++) {
      if (at < bytes.length && bytes[at] !== SLASH && !(WINDOWS && bytes[at] === BACKSLASH)) continue;
      const segment = bytes.subarray(start, at);
      start = at + 1;
      if (segment.length === 0 || (segment.length === 1 && segment[0] === 0x2e)) continue;
      if (segment.length === 2 && segment[0] === 0x2e && segment[1] === 0x2e) {
        if (segments.pop() === undefined) {
          throw new FileRefusedError(ERROR_CODES.OUTSIDE_ROOT, shown, "climbs out of the root");
        }
        continue;
      }
      segments.push(segment);
    }
    if (segments.length === 0) return this.#rootBytes;
    const separator = Buffer.from(sep);
    return Buffer.concat([
      this.#prefix,
      ...segments.flatMap((segment, i) => (i === 0 ? [segment] : [separator, segment])),
    ]);
  }

  /** Checks where the opened file is (`null`: replaced while it was opened); returns its real path. */
  #verify(path: string, stats: Stats, realPath: Buffer | null): string {
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
    return realPath.toString();
  }
}

function startsWith(bytes: Buffer, prefix: Buffer): boolean {
  return bytes.compare(prefix, 0, prefix.length, 0, prefix.length) === 0;
}

function display(path: RootPath): string {
  return typeof path === "string" ? path : Buffer.from(path).toString();
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

function grewTooLarge(path: string, maxBytes: number): () => Error {
  return () => new FileRefusedError(ERROR_CODES.FILE_TOO_LARGE, path, `grew past ${maxBytes} bytes while it was read`);
}

function closed(path: string): Error {
  return new Error(`${JSON.stringify(path)} is closed`);
}

function syncFile(fd: number, path: string, realPath: string, stats: Stats, maxBytes: number): OpenedFile {
  let open = true;
  return {
    path,
    realPath,
    stats,
    read() {
      if (!open) throw closed(path);
      return readAllSync(fd, stats, maxBytes, grewTooLarge(path, maxBytes));
    },
    readAt(position, length) {
      if (!open) throw closed(path);
      return readAtSync(fd, position, length);
    },
    close() {
      if (!open) return;
      open = false;
      closeSync(fd);
    },
  };
}

function asyncFile(handle: FileHandle, path: string, realPath: string, stats: Stats, maxBytes: number) {
  let open = true;
  const file: OpenedFileAsync = {
    path,
    realPath,
    stats,
    async read() {
      if (!open) throw closed(path);
      return readAll(handle, stats, maxBytes, grewTooLarge(path, maxBytes));
    },
    async readAt(position, length) {
      if (!open) throw closed(path);
      return readAt(handle, position, length);
    },
    async close() {
      if (!open) return;
      open = false;
      await handle.close();
    },
  };
  return file;
}
