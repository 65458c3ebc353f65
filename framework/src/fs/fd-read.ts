/**
 * Reading from a descriptor the root-confined reader has verified: never by path
 * again. A file may grow while it is read, so a whole read stops at end of file and
 * still holds to the size bound.
 */
import { readSync, type Stats } from "node:fs";
import type { FileHandle } from "node:fs/promises";

/** Room for the whole file as fstat saw it and one byte more, so growth shows at once. */
function initialBuffer(stats: Stats, maxBytes: number): Buffer {
  return Buffer.allocUnsafe(Math.min(stats.size, maxBytes) + 1);
}

function grown(buffer: Buffer, length: number, maxBytes: number): Buffer {
  const bigger = Buffer.allocUnsafe(Math.min(Math.max(2 * buffer.length, 8192), maxBytes + 1));
  buffer.copy(bigger, 0, 0, length);
  return bigger;
}

/**
 * The whole file from `fd`; `tooLarge` is thrown once more than `maxBytes` arrived.
 * @param tooLarge makes the error for a file that grew past `maxBytes` while read
 */
export function readAllSync(fd: number, stats: Stats, maxBytes: number, tooLarge: () => Error): Buffer {
  let buffer = initialBuffer(stats, maxBytes);
  let length = 0;
  for (;;) {
    if (length > maxBytes) throw tooLarge();
    if (length === buffer.length) buffer = grown(buffer, length, maxBytes);
    const read = readSync(fd, buffer, length, buffer.length - length, length);
    if (read === 0) break;
    length += read;
  }
  return buffer.subarray(0, length);
}

/** {@link readAllSync} through a `FileHandle`. */
export async function readAll(handle: FileHandle, stats: Stats, maxBytes: number, tooLarge: () => Error) {
  let buffer = initialBuffer(stats, maxBytes);
  let length = 0;
  for (;;) {
    if (length > maxBytes) throw tooLarge();
    if (length === buffer.length) buffer = grown(buffer, length, maxBytes);
    const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
    if (bytesRead === 0) break;
    length += bytesRead;
  }
  return buffer.subarray(0, length);
}

function checkRange(position: number, length: number): void {
  if (!Number.isSafeInteger(position) || position < 0 || !Number.isSafeInteger(length) || length < 0) {
    throw new RangeError(`a byte range needs a position and a length ≥ 0, not ${position} and ${length}`);
  }
}

/** Up to `length` bytes at `position` of `fd` (fewer at end of file). */
export function readAtSync(fd: number, position: number, length: number): Buffer {
  checkRange(position, length);
  const buffer = Buffer.allocUnsafe(length);
  let filled = 0;
  while (filled < length) {
    const read = readSync(fd, buffer, filled, length - filled, position + filled);
    if (read === 0) break;
    filled += read;
  }
  return buffer.subarray(0, filled);
}

/** {@link readAtSync} through a `FileHandle`. */
export async function readAt(handle: FileHandle, position: number, length: number): Promise<Buffer> {
  checkRange(position, length);
  const buffer = Buffer.allocUnsafe(length);
  let filled = 0;
  while (filled < length) {
    const { bytesRead } = await handle.read(buffer, filled, length - filled, position + filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return buffer.subarray(0, filled);
}
