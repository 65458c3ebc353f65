/**
 * Providers serving HTTP announce `listening on http://…` on stderr once they accept
 * connections. One way to wait for that line, for a child a test spawned itself
 * (`listeningUrl`) and for a command started here in its own process group
 * (`startListening`, what the conformance fixture does).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { type Child, REPO } from "./child.js";

const LISTENING_LINE = /listening on (https?:\/\/\S+)/;

/**
 * Resolves with the URL of the first `listening on …` line in `stderr()` (all that
 * `child` has written to stderr so far); rejects if `child` exits first or after `timeoutMs`.
 */
export function waitForListening(child: ChildProcess, stderr: () => string, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const settle = () => {
      clearTimeout(timer);
      child.stderr?.off("data", check);
      child.off("exit", exited);
    };
    // Runs after the caller's own stderr listener (registered earlier), so `stderr()` holds the chunk.
    const check = () => {
      const url = LISTENING_LINE.exec(stderr())?.[1];
      if (url === undefined) return;
      settle();
      resolve(url);
    };
    const exited = (code: number | null) => {
      settle();
      reject(new Error(`exited with code ${code} before listening; stderr:\n${stderr()}`));
    };
    const timer = setTimeout(() => {
      settle();
      reject(new Error(`no 'listening on' line within ${timeoutMs} ms; stderr:\n${stderr()}`));
    }, timeoutMs);
    child.stderr?.on("data", check);
    child.once("exit", exited);
    check(); // the line may have come before we started listening
    if (child.exitCode !== null || child.signalCode !== null) exited(child.exitCode);
  });
}

/** The URL a child spawned with `--http 127.0.0.1:0` serves on, once it says so on stderr. */
export function listeningUrl(child: Child, timeoutMs = 10_000): Promise<string> {
  return waitForListening(child.process, child.stderr, timeoutMs);
}

/** A provider serving HTTP in its own process group. */
export interface Listening {
  readonly url: string;
  /** Kills its whole process group. */
  stop(): void;
}

/**
 * Starts `command args` in the repository root, in its own process group, and waits
 * (up to 15 s) for `listening on http://…` on its stderr; on failure the group is killed.
 */
export async function startListening(command: string, args: readonly string[]): Promise<Listening> {
  const child = spawn(command, [...args], { cwd: REPO, detached: true, stdio: ["ignore", "ignore", "pipe"] });
  const stop = () => {
    try {
      process.kill(-(child.pid as number), "SIGKILL");
    } catch {
      // already gone
    }
  };
  let stderr = "";
  child.stderr.setEncoding("utf8");
  // Kept for the child's whole life: it also drains the pipe, so the child never blocks on stderr.
  child.stderr.on("data", (chunk: string) => {
    stderr += chunk;
  });
  try {
    return { url: await waitForListening(child, () => stderr, 15_000), stop };
  } catch (error) {
    stop();
    throw error;
  }
}
