/**
 * A real child process speaking NDJSON: what a host does when it spawns a provider.
 * Tests use it to check the whole path — argv, module loading, stdio, exit codes.
 */
import {
  type ChildProcess,
  type ChildProcessWithoutNullStreams,
  type ExecFileOptions,
  execFile,
  spawn,
} from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { within } from "../../framework/src/host/process.js";

/** The repository root. */
export const REPO = fileURLToPath(new URL("../../", import.meta.url));
/** The built `ocp` command (npm test builds before it tests). */
export const OCP_BIN = fileURLToPath(new URL("../../framework/bin/ocp.js", import.meta.url));

/** How a child run to its end went: its exit code and all it wrote. */
export interface Finished {
  code: number;
  stdout: string;
  stderr: string;
}

const execFileAsync = promisify(execFile);

/**
 * Runs `node ...args` to its end and resolves with its exit code and output, whatever the
 * code: the tests assert on it. In the repository unless `options.cwd` says otherwise; up
 * to 64 MiB of output.
 */
export async function runNode(args: readonly string[], options: ExecFileOptions = {}): Promise<Finished> {
  try {
    const { stdout, stderr } = await execFileAsync(process.execPath, args, {
      cwd: REPO,
      maxBuffer: 64 * 1024 * 1024,
      ...options,
      encoding: "utf8",
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as Finished;
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/**
 * Resolves with `child`'s exit code and signal once it has exited and its output has been
 * read: 'exit' can come before the last stdout/stderr bytes, and 'close' waits for every
 * holder of the pipes, a grandchild too (tsx's esbuild service shares a provider's
 * stderr). So: the exit, then 'close' or `graceMs`, whichever comes first.
 */
export function exitedWithOutput(
  child: ChildProcess,
  graceMs = 1000,
): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  const closed = new Promise<void>((resolve) => child.once("close", () => resolve()));
  return new Promise((resolve) =>
    child.once("exit", (code, signal) => void within(closed, graceMs).then(() => resolve({ code, signal }))),
  );
}

/** A spawned provider with its output split into lines. */
export interface Child {
  readonly process: ChildProcessWithoutNullStreams;
  /** Every stdout line so far. */
  readonly lines: string[];
  /** Everything written to stderr so far. */
  stderr(): string;
  /** Writes a value as one JSON line, or a string as is. */
  send(message: unknown): void;
  /** Resolves with the next stdout line (rejects after `timeoutMs`). */
  nextLine(timeoutMs?: number): Promise<string>;
  /** Resolves with the exit code and signal once the process has exited and closed its output. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Spawns `node <args>` in the repository root. */
export function spawnNode(args: string[], env: NodeJS.ProcessEnv = {}): Child {
  const child = spawn(process.execPath, args, { cwd: REPO, env: { ...process.env, ...env } });
  const lines: string[] = [];
  const waiters: ((line: string) => void)[] = [];
  let pending = "";
  let stderr = "";
  let read = 0;
  child.stdout.setEncoding("utf8");
  child.stderr.setEncoding("utf8");
  child.stdout.on("data", (chunk: string) => {
    pending += chunk;
    let newline = pending.indexOf("\n");
    while (newline !== -1) {
      lines.push(pending.slice(0, newline));
      pending = pending.slice(newline + 1);
      newline = pending.indexOf("\n");
    }
    while (waiters.length > 0 && read < lines.length)
      (waiters.shift() as (line: string) => void)(lines[read++] as string);
  });
  child.stderr.on("data", (chunk: string) => {
    stderr += chunk;
  });
  const exited = exitedWithOutput(child);
  child.stdin.on("error", () => {}); // a test may write after the child has gone
  return {
    process: child,
    lines,
    stderr: () => stderr,
    exited,
    send: (message) => child.stdin.write(typeof message === "string" ? message : `${JSON.stringify(message)}\n`),
    nextLine: (timeoutMs = 10_000) => {
      if (read < lines.length) return Promise.resolve(lines[read++] as string);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no line within ${timeoutMs} ms; stderr:\n${stderr}`)),
          timeoutMs,
        );
        waiters.push((line) => {
          clearTimeout(timer);
          resolve(line);
        });
      });
    },
  };
}

/** The children a test file has spawned, so that none outlives its test. */
export interface TrackedChildren {
  /** Spawns `node <args>` like `spawnNode` and remembers the child. */
  spawn(args: string[], env?: NodeJS.ProcessEnv): Child;
  /** SIGKILLs every child spawned since the last call: an `afterEach` hook. */
  killAll(): void;
}

/** Starts tracking children; pass `killAll` to `afterEach`. */
export function trackChildren(): TrackedChildren {
  const live: Child[] = [];
  return {
    spawn: (args, env) => {
      const child = spawnNode(args, env);
      live.push(child);
      return child;
    },
    killAll: () => {
      for (const child of live.splice(0)) child.process.kill("SIGKILL");
    },
  };
}

/** Resolves once `child` has exited, or rejects after `ms`, killing it. */
export async function exitWithin(child: Child, ms: number): Promise<{ code: number | null; elapsed: number }> {
  const started = Date.now();
  const timer = setTimeout(() => child.process.kill("SIGKILL"), ms);
  const { code, signal } = await child.exited;
  clearTimeout(timer);
  if (signal === "SIGKILL") throw new Error(`process did not exit within ${ms} ms`);
  return { code, elapsed: Date.now() - started };
}
