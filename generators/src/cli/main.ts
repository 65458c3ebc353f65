/**
 * The `create-ocp-provider` command: create a project (the default), or run a codemod
 * in one (`add plugin`, `generate plugin`). Exit codes: 0 success, 1 failure, 2 usage error.
 */
import { CREATE_ERROR_CODES, CreateError } from "../errors.js";

/**
 * Runs the command line; resolves to the exit code and never throws. With `checkOnly`, a
 * create command line is only checked (see createCommand); the codemods have nothing to check.
 */
export async function main(argv: string[], { checkOnly = false } = {}): Promise<number> {
  const [first, ...rest] = argv;
  try {
    if (first === "--version") {
      if (checkOnly) return 0;
      const { OWN_VERSION } = await import("../create/templates.js");
      process.stdout.write(`${OWN_VERSION}\n`);
      return 0;
    }
    // Loaded on demand: the codemods pull in ts-morph (and TypeScript), which creating a project never needs.
    if (checkOnly && (first === "add" || first === "generate" || first === "g")) return 0;
    if (first === "add") return await (await import("./codemod-commands.js")).addCommand(rest);
    if (first === "generate" || first === "g")
      return await (await import("./codemod-commands.js")).generateCommand(rest);
    return await (await import("./create-command.js")).createCommand(argv, { checkOnly });
  } catch (error) {
    const message = error instanceof CreateError ? error.message : ((error as Error)?.stack ?? String(error));
    process.stderr.write(`create-ocp-provider: ${message}\n`);
    return error instanceof CreateError && error.code === CREATE_ERROR_CODES.USAGE ? 2 : 1;
  }
}
