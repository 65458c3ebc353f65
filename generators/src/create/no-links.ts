/**
 * Writing only inside the project. A project is a checkout, and a checkout decides
 * what is in it: a `src/plugins` committed as a symbolic link would carry a new file
 * anywhere, and a linked `src/provider.ts` would have a codemod edit a file elsewhere.
 * So before the scaffolder or a codemod writes a file, every existing directory from
 * the project down to it, and the file itself, is checked with `lstat`, and a link is
 * refused (`OCP_ERR_CREATE_SYMLINK`) before anything is written. What does not exist
 * yet is made by `mkdir`, which never follows a link.
 */
import { lstatSync } from "node:fs";
import { isAbsolute, join, relative, sep } from "node:path";
import { CREATE_ERROR_CODES, CreateError } from "../errors.js";

/** Whether `path` is a symbolic link; undefined when nothing is there. */
function isLink(path: string): boolean | undefined {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

/**
 * Throws a `CreateError` (`OCP_ERR_CREATE_SYMLINK`) if writing `target` would go through
 * a symbolic link under `project`: a directory on the way, or the file itself. A target
 * outside `project` (a path the person named) has only its own last component checked.
 */
export function refuseLinks(project: string, target: string): void {
  const rel = relative(project, target);
  const inside = rel !== "" && rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
  const paths = inside ? rel.split(sep).map((_, i, segments) => join(project, ...segments.slice(0, i + 1))) : [target];
  for (const path of paths) {
    const link = isLink(path);
    if (link === undefined) return;
    if (link) {
      throw new CreateError(
        CREATE_ERROR_CODES.SYMLINK,
        `${path} is a symbolic link: nothing is written through a link (${target} would be); remove it, or write the file yourself`,
      );
    }
  }
}
