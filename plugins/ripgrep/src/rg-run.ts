/**
 * Running rg: no shell, an argv array, stdin closed, a bounded time, and a kill on
 * abort, on timeout and when the caller has seen enough — so no rg process ever
 * outlives the search that started it. The promise settles only once rg has exited.
 */
import { spawn } from "node:child_process";
import { StringDecoder } from "node:string_decoder";

/** Options of {@link runRipgrep}. */
export interface RunRipgrepOptions {
  /** The rg executable. */
  rgPath: string;
  /** Arguments, passed as is (no shell ever sees them). */
  args: readonly string[];
  /** Working directory: the search root. */
  cwd: string;
  /** Aborting kills rg and rejects with the signal's reason (once rg has exited). */
  signal?: AbortSignal;
  /** Kills rg after this many ms and resolves with what was read (`ended: "timeout"`). */
  timeoutMs?: number;
  /** Receives stdout as it arrives; return `false` to stop rg (`ended: "stopped"`). */
  onStdout(chunk: Buffer): boolean | undefined;
}

/** How an rg run ended. */
export interface RunRipgrepResult {
  /** rg's exit code when it exited by itself: 0 found, 1 nothing found, 2 an error (maybe partial results). */
  readonly exitCode: number | null;
  /** `exit`: rg finished; `stopped`: the caller had enough; `timeout`: `timeoutMs` passed. */
  readonly ended: "exit" | "stopped" | "timeout";
  /** The start of rg's stderr (bounded), for diagnostics. */
  readonly stderr: string;
}

const STDERR_LIMIT = 4096;

/** Runs rg once; see {@link RunRipgrepOptions}. Rejects if rg cannot be started or the signal aborts. */
export function runRipgrep(options: RunRipgrepOptions): Promise<RunRipgrepResult> {
  // No closure below refers to `options`: a closure keeps its whole scope alive, and the
  // ChildProcess (its listeners) outlives this call a little while its exit is dispatched;
  // the stdout handler, and with it a whole search's results, must not stay reachable then.
  const { signal, rgPath, args, cwd, timeoutMs } = options;
  let onStdout: RunRipgrepOptions["onStdout"] | undefined = options.onStdout;
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    // RIPGREP_CONFIG_PATH would let the environment add flags; --no-config is passed too.
    const env = { ...process.env };
    delete env.RIPGREP_CONFIG_PATH;
    const child = spawn(rgPath, [...args], {
      cwd,
      env,
      shell: false,
      stdio: ["ignore", "pipe", "pipe"],
      windowsHide: true,
    });
    let ended: RunRipgrepResult["ended"] = "exit";
    let stderr = "";
    let settled = false;
    let timer: NodeJS.Timeout | undefined;

    const kill = () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    };
    const cleanup = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      onStdout = undefined;
    };
    const onAbort = () => {
      kill();
      if (settled) return;
      settled = true;
      cleanup();
      const reason = signal?.reason;
      // Rejected once rg is gone, not before: a caller that bounds how many rg run at
      // once (the plugin's search slots) frees the slot only when the process is.
      if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) reject(reason);
      else child.once("exit", () => reject(reason));
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    if (timeoutMs !== undefined) {
      timer = setTimeout(
        () => {
          if (ended === "exit") ended = "timeout";
          kill();
        },
        Math.max(0, timeoutMs),
      );
    }

    child.stdout.on("data", (chunk: Buffer) => {
      if (ended !== "exit" || onStdout === undefined) return; // stopping: whatever is still buffered is not wanted
      if (onStdout(chunk) === false) {
        ended = "stopped";
        kill();
      }
    });
    const decoder = new StringDecoder("utf8");
    child.stderr.on("data", (chunk: Buffer) => {
      if (stderr.length < STDERR_LIMIT) stderr = (stderr + decoder.write(chunk)).slice(0, STDERR_LIMIT);
    });
    child.on("error", (error) => {
      kill();
      if (settled) return;
      settled = true;
      cleanup();
      reject(new Error(`could not run ripgrep at '${rgPath}': ${error.message}`, { cause: error }));
    });
    child.on("close", (code) => {
      if (settled) return;
      settled = true;
      cleanup();
      resolve({ exitCode: ended === "exit" ? code : null, ended, stderr: stderr.trim() });
    });
  });
}
