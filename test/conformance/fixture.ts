/**
 * Starting providers for the conformance tests: the misbehaving fixture (built,
 * from framework/dist — npm test builds first) and any provider that serves HTTP
 * and announces `listening on http://…` on stderr.
 */
import { statSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { StdioTarget } from "ocp-provider/conformance";

/** The repository root. */
export const REPO = fileURLToPath(new URL("../../", import.meta.url));
const DIST = new URL("../../framework/dist/conformance/", import.meta.url);
const SRC = new URL("../../framework/src/conformance/", import.meta.url);
/** The built misbehaving provider. */
export const MISBEHAVING = fileURLToPath(new URL("misbehaving-provider.js", DIST));

/**
 * Throws unless the built fixture is at least as new as its sources: a stale
 * build would test yesterday's fixture. (Spawning the built file rather than the
 * source through tsx makes the ~100 spawns of these tests three times cheaper.)
 */
export function assertFixtureBuilt(): void {
  for (const name of ["misbehaving-provider", "misbehaving-answers"]) {
    const source = statSync(new URL(`${name}.ts`, SRC)).mtimeMs;
    let built: number;
    try {
      built = statSync(new URL(`${name}.js`, DIST)).mtimeMs;
    } catch {
      built = 0;
    }
    if (built < source)
      throw new Error(
        `framework/dist/conformance/${name}.js is missing or older than its source: run \`npm run build\` first`,
      );
  }
}

/** The fixture in `mode`, as a stdio conformance target. */
export function misbehaving(mode: string, ...extra: string[]): StdioTarget {
  return {
    transport: "stdio",
    command: process.execPath,
    args: [MISBEHAVING, "--misbehave", mode, ...extra],
    cwd: REPO,
  };
}

export { type Listening, startListening } from "../test-support/listening.js";
