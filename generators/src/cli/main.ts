/**
 * The `create-ocp-provider` command: create a project (the default), or run a codemod
 * in one (`add plugin`, `generate plugin`). Exit codes: 0 success, 1 failure, 2 usage error.
 */
import { CREATE_ERROR_CODES, CreateError } from "../errors.js";

/** Options of {@link main}. */
export interface MainOptions {
  /** Only check a create command line (see createCommand); the codemods have nothing to check. */
  checkOnly?: boolean;
  /**
   * The command the person typed, for help and errors: `create-ocp-provider` (the default),
   * or `ocp`, whose `add` and `generate` run the codemods here.
   */
  bin?: string;
}

/** Runs the command line; resolves to the exit code and never throws. */
export async function main(
  argv: string[],
  { checkOnly = false, bin = "create-ocp-provider" }: MainOptions = {},
): Promise<number> {
  const [first, ...rest] = argv;
  // `ocp add: …` as ocp's own commands say `ocp query: …`; this bin's own errors as always.
  const label = bin === "create-ocp-provider" ? bin : `${bin} ${first}`;
  try {
    if (first === "--version") {
      if (checkOnly) return 0;
      const { OWN_VERSION } = await import("../create/templates.js");
      process.stdout.write(`${OWN_VERSION}\n`);
      return 0;
    }
    // Loaded on demand: the codemods pull in ts-morph (and TypeScript), which creating a project never needs.
    if (checkOnly && (first === "add" || first === "generate" || first === "g")) return 0;
    if (first === "add") return await (await import("./codemod-commands.js")).addCommand(rest, bin);
    if (first === "generate" || first === "g")
      return await (await import("./codemod-commands.js")).generateCommand(rest, bin);
    return await (await import("./create-command.js")).createCommand(argv, { checkOnly });
  } catch (error) {
    const message = error instanceof CreateError ? error.message : ((error as Error)?.stack ?? String(error));
    process.stderr.write(`${label}: ${message}\n`);
    return error instanceof CreateError && error.code === CREATE_ERROR_CODES.USAGE ? 2 : 1;
  }
}
