/**
 * Where an open file is: the second half of the root-confined reader's check (see
 * root-reader.ts). On Linux the kernel names the open descriptor itself, which no
 * later swap of the path can change; elsewhere the path is resolved and must still
 * hold the very inode that was opened. Paths are bytes throughout, so a file name
 * that is not UTF-8 is compared exactly.
 */
import { lstatSync, readlinkSync, realpathSync, type Stats } from "node:fs";
import { lstat, readlink, realpath } from "node:fs/promises";

/** Whether `/proc/self/fd` names open files here: learned on the first lookup on Linux, never tried elsewhere. */
let procFd: boolean | undefined = process.platform === "linux" ? undefined : false;

/** The kernel's name for an open descriptor, or undefined where there is no `/proc/self/fd`. */
export function locateSync(fd: number): Buffer | undefined {
  if (procFd === false) return undefined;
  try {
    const named = readlinkSync(`/proc/self/fd/${fd}`, { encoding: "buffer" });
    procFd = true;
    return named;
  } catch (error) {
    return noProc(error);
  }
}

/** {@link locateSync}, without blocking the event loop. */
export async function locate(fd: number): Promise<Buffer | undefined> {
  if (procFd === false) return undefined;
  try {
    const named = await readlink(`/proc/self/fd/${fd}`, { encoding: "buffer" });
    procFd = true;
    return named;
  } catch (error) {
    return noProc(error);
  }
}

/** A failed lookup: if `/proc` never worked here there is none (fall back); once it has, a real failure. */
function noProc(error: unknown): undefined {
  const code = (error as NodeJS.ErrnoException).code;
  if (procFd === true || !(code === "ENOENT" || code === "EACCES" || code === "EPERM")) throw error;
  procFd = false;
  return undefined;
}

/**
 * Without `/proc`: the real path of `absolute`, if it (not through a link) holds the
 * inode `opened` describes; null if the path now names another file.
 */
export function resolvedLocationSync(absolute: Buffer, opened: Stats): Buffer | null {
  const realPath = realpathSync.native(absolute, { encoding: "buffer" });
  return sameFile(lstatSync(realPath), opened) ? realPath : null;
}

/** {@link resolvedLocationSync}, without blocking the event loop. */
export async function resolvedLocation(absolute: Buffer, opened: Stats): Promise<Buffer | null> {
  const realPath = await realpath(absolute, { encoding: "buffer" });
  return sameFile(await lstat(realPath), opened) ? realPath : null;
}

function sameFile(found: Stats, opened: Stats): boolean {
  return !found.isSymbolicLink() && found.dev === opened.dev && found.ino === opened.ino;
}
