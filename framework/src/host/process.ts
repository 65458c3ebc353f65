/**
 * A provider process as a host runs it: spawned in its own process group, its
 * stdout split into NDJSON lines, its stderr kept (bounded), and stopped so that
 * nothing it started outlives it.
 *
 * The child is spawned `detached`, which on POSIX makes it the leader of a new
 * process group; killing `-pid` then reaches every grandchild it spawned, which a
 * plain `child.kill()` would leave behind as orphans.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { LineSplitter } from "../transports/stdio/ndjson.js";
import { clip } from "./clip.js";

/** Options of {@link spawnProviderProcess}. */
export interface ProviderProcessOptions {
  /** Working directory; default the current one. */
  cwd?: string;
  /** Extra environment variables, on top of this process's environment. */
  env?: NodeJS.ProcessEnv;
  /** Longest stdout line accepted; longer ones are reported as overflow. Default 64 MiB. */
  maxLineBytes?: number;
  /** How much of stderr to keep (the most recent bytes). Default 256 KiB. */
  maxStderrBytes?: number;
}

/** How a process ended. */
export interface ProcessExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** What arrives on the provider's stdout: a complete line, or a line too long to keep. */
export type OutputEvent = { type: "line"; text: string } | { type: "overflow"; limit: number };

/** A spawned provider. */
export interface ProviderProcess {
  /** The process id, which is also its process group id. */
  readonly pid: number;
  /** The command line, for messages. */
  readonly commandLine: string;
  /** Resolves once the process has exited (never rejects; a spawn failure resolves with code null). */
  readonly exited: Promise<ProcessExit>;
  /** The exit, once it has happened. */
  readonly exit: ProcessExit | undefined;
  /** Why the process could not be started, if it could not. */
  readonly spawnError: Error | undefined;
  /** Writes raw text or bytes to stdin; false once stdin is closed. */
  write(data: string | Uint8Array): boolean;
  /** Closes stdin (EOF). */
  closeInput(): void;
  /** Subscribes to stdout events; returns an unsubscribe function. */
  onOutput(listener: (event: OutputEvent) => void): () => void;
  /** The kept tail of stderr. */
  stderr(): string;
  /** Sends a signal to the whole process group; false if the group is already gone. */
  signalGroup(signal: NodeJS.Signals): boolean;
  /**
   * Waits up to `graceMs` for the process to exit on its own, then terminates the
   * whole group (SIGTERM, then SIGKILL 500 ms later). Resolves once the leader has
   * exited and the group is gone, or after the SIGKILL.
   */
  stop(graceMs: number): Promise<ProcessExit>;
}

/** Groups still alive, killed if this process exits first, so a crashing host leaves no orphans. */
const liveGroups = new Set<number>();
let exitHookInstalled = false;
function trackGroup(pid: number): void {
  liveGroups.add(pid);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once("exit", () => {
    for (const group of liveGroups) {
      try {
        process.kill(-group, "SIGKILL");
      } catch {
        // already gone
      }
    }
  });
}

/** True if any process of group `pid` is still alive. */
export function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch (error) {
    // EPERM means it exists but is not ours to signal: still alive.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Resolves with `promise`'s value, or with undefined after `ms`; the timer never outlives the race. */
export async function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<undefined>((resolve) => {
        timer = setTimeout(() => resolve(undefined), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Spawns `command args` as a provider: its own process group, piped stdio. */
export function spawnProviderProcess(
  command: string,
  args: readonly string[],
  options: ProviderProcessOptions = {},
): ProviderProcess {
  const child: ChildProcessWithoutNullStreams = spawn(command, [...args], {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    detached: true,
    stdio: ["pipe", "pipe", "pipe"],
  });
  const commandLine = [command, ...args].map(quoteArg).join(" ");
  const maxStderr = options.maxStderrBytes ?? 256 * 1024;
  const splitter = new LineSplitter(options.maxLineBytes ?? 64 * 1024 * 1024);
  const listeners = new Set<(event: OutputEvent) => void>();
  let stderrText = "";
  let exit: ProcessExit | undefined;
  let spawnError: Error | undefined;
  let inputOpen = true;

  const emit = (events: OutputEvent[]) => {
    for (const event of events) for (const listener of [...listeners]) listener(event);
  };
  child.stdout.on("data", (chunk: Buffer) => emit(splitter.push(chunk)));
  const stdoutEnded = new Promise<void>((resolve) => {
    child.stdout.on("end", () => {
      emit(splitter.end());
      resolve();
    });
    child.stdout.on("close", () => resolve());
  });
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (chunk: string) => {
    stderrText += chunk;
    if (stderrText.length > maxStderr) stderrText = stderrText.slice(stderrText.length - maxStderr);
  });
  const stderrEnded = new Promise<void>((resolve) => {
    child.stderr.on("end", () => resolve());
    child.stderr.on("close", () => resolve());
  });
  // Writing to a provider that has gone must not crash the host.
  child.stdin.on("error", () => {
    inputOpen = false;
  });
  const exited = new Promise<ProcessExit>((resolve) => {
    child.once("error", (error) => {
      spawnError = error;
      if (child.pid === undefined) {
        exit = { code: null, signal: null };
        resolve(exit);
      }
    });
    child.once("exit", (code, signal) => {
      inputOpen = false;
      // 'exit' can come before the last stdout and stderr bytes are read: a reply, or the error
      // that explains the exit, written just before exiting must still be seen. A grandchild
      // holding a pipe open must not stall us, hence the bound.
      void within(Promise.all([stdoutEnded, stderrEnded]), 200).then(() => {
        exit = { code, signal };
        resolve(exit);
      });
    });
  });
  const pid = child.pid ?? -1;
  if (pid > 0) trackGroup(pid);

  function signalGroup(signal: NodeJS.Signals): boolean {
    if (pid <= 0) return false;
    try {
      process.kill(-pid, signal);
      return true;
    } catch {
      return false;
    }
  }

  async function waitForGroup(ms: number): Promise<boolean> {
    const deadline = Date.now() + ms;
    while (Date.now() < deadline) {
      if (exit !== undefined && !groupAlive(pid)) return true;
      await sleep(20);
    }
    return exit !== undefined && !groupAlive(pid);
  }

  let stopping: Promise<ProcessExit> | undefined;
  function stop(graceMs: number): Promise<ProcessExit> {
    stopping ??= (async () => {
      if (pid <= 0) return exited;
      await within(exited, graceMs);
      // The leader may be gone while grandchildren it started live on in the group.
      if (groupAlive(pid)) {
        signalGroup("SIGTERM");
        if (!(await waitForGroup(500))) signalGroup("SIGKILL");
      }
      const result = await exited;
      // After SIGKILL the kernel reaps the group quickly but not instantly.
      await waitForGroup(1000);
      liveGroups.delete(pid);
      return result;
    })();
    return stopping;
  }

  return {
    pid,
    commandLine,
    exited,
    get exit() {
      return exit;
    },
    get spawnError() {
      return spawnError;
    },
    write(data) {
      if (!inputOpen || child.stdin.destroyed) return false;
      child.stdin.write(data);
      return true;
    },
    closeInput() {
      inputOpen = false;
      child.stdin.end();
    },
    onOutput(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    stderr: () => stderrText,
    signalGroup,
    stop,
  };
}

/** Quotes an argument for display when it has characters a shell would split on. */
function quoteArg(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", "'\\''")}'`;
}

/**
 * The one stderr line that best explains a failure, for one-line evidence: the
 * last line naming an error (not a stack frame), else the last line.
 */
export function stderrGist(text: string): string {
  const lines = text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("at ") && !/^Node\.js v\d/.test(line));
  const named = lines.findLast((line) => /error|exception|panic|fatal|traceback/i.test(line));
  const gist = named ?? lines.at(-1) ?? "(nothing on stderr)";
  return clip(gist, 200);
}
