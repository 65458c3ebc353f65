/**
 * `npm create ocp-provider` never loads the codemods' ts-morph (and the TypeScript it
 * bundles): about a second of start-up on every run, for a project that never needs it.
 * It crept back once through a shared constant; this watches the built CLI's imports.
 */
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const BIN = fileURLToPath(new URL("../../bin/create-ocp-provider.js", import.meta.url));

/** A loader hook, registered before the CLI starts, that names every ts-morph import on stderr. */
const WATCH = `data:text/javascript,${encodeURIComponent(`
import { register } from "node:module";
register("data:text/javascript," + encodeURIComponent(
  "export async function resolve(specifier, context, next) {" +
  "  if (specifier === 'ts-morph') process.stderr.write('imported: ts-morph\\\\n');" +
  "  return next(specifier, context);" +
  "}"));
`)}`;

async function imports(args: string[]): Promise<string> {
  const { stderr } = await promisify(execFile)(process.execPath, ["--import", WATCH, BIN, ...args], {
    env: { ...process.env, NO_COLOR: "1" },
  }).catch((error: { stderr: string }) => error);
  return stderr;
}

describe("the create command's start-up", () => {
  it("imports no ts-morph for --help, while `add` still does (the watch works)", async () => {
    expect(await imports(["--help"])).not.toContain("imported: ts-morph");
    expect(await imports(["add", "plugin", "--help"])).toContain("imported: ts-morph");
  });
});
