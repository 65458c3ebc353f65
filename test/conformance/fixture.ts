/**
 * Starting providers for the conformance tests: the misbehaving fixture (built,
 * from framework/dist — npm test builds first) and any provider that serves HTTP
 * and announces `listening on http://…` on stderr.
 */
import { spawn } from "node:child_process";
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

/** A provider serving HTTP in its own process group. */
export interface Listening {
  readonly url: string;
  /** Kills its whole process group. */
  stop(): void;
}

/** Starts `command args` and waits (up to 15 s) for `listening on http://…` on its stderr. */
export function startListening(command: string, args: readonly string[]): Promise<Listening> {
  const child = spawn(command, [...args], { cwd: REPO, detached: true, stdio: ["ignore", "ignore", "pipe"] });
  const stop = () => {
    try {
      process.kill(-(child.pid as number), "SIGKILL");
    } catch {
      // already gone
    }
  };
  let stderr = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`no 'listening on' line within 15 s; stderr:\n${stderr}`));
    }, 15_000);
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => {
      stderr += chunk;
      const url = /listening on (https?:\/\/\S+)/.exec(stderr)?.[1];
      if (url !== undefined) {
        clearTimeout(timer);
        resolve({ url, stop });
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with code ${code} before listening; stderr:\n${stderr}`));
    });
  });
}
