/**
 * Commands as a person types them: a README's `sh` blocks read as lines, each run
 * through a real `sh -c` in a directory of its own — to completion, or (a server) until
 * it says it is ready, then stopped with its whole process group. Shared by the tests
 * that run the repository's README and the generated projects' READMEs verbatim.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";

const MINUTE = 60_000;

/** A finished command. */
export interface Done {
  code: number | null;
  /** stdout and stderr, interleaved. */
  output: string;
  stdout: string;
  ms: number;
}

/** One ```sh block of a Markdown file: the `##` heading it sits under, and its command lines. */
export interface ShBlock {
  heading: string;
  commands: string[];
}

/** Every ```sh block of `markdown`, in order, each line with its trailing `# comment` and blank lines dropped. */
export function shBlocks(markdown: string): ShBlock[] {
  const blocks: ShBlock[] = [];
  let heading = "";
  for (const match of markdown.matchAll(/^## (.*)$|^```sh\n([\s\S]*?)^```$/gm)) {
    if (match[1] !== undefined) heading = match[1];
    else blocks.push({ heading, commands: commandLines(match[2] ?? "") });
  }
  return blocks;
}

/** The commands of the ```sh block under `## heading` (none if there is no such block). */
export function shBlock(markdown: string, heading: string): string[] {
  return shBlocks(markdown).find((block) => block.heading === heading)?.commands ?? [];
}

// A `#` starts a comment only after whitespace, as in sh: `a#b` and `"#x"` at a word's start stay.
const commandLines = (block: string) =>
  block
    .split("\n")
    .map((line) => line.replace(/\s+#.*$/, "").trim())
    .filter((line) => line !== "");

/** The environment of the outer `npm test`/vitest, minus what would steer a nested npm, node or vitest. */
export function cleanEnv(): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([key]) => !/^(npm_|VITEST|TINYPOOL|NODE_OPTIONS$|INIT_CWD$|NODE_ENV$|FORCE_COLOR$)/i.test(key),
    ),
  );
  return { ...env, NO_COLOR: "1" };
}

function collect(child: ChildProcessWithoutNullStreams) {
  const seen = { output: "", stdout: "" };
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    seen.output += chunk;
    seen.stdout += chunk;
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    seen.output += chunk;
  });
  return seen;
}

/** Options of {@link typed}. */
export interface TypedOptions {
  /** Written to its stdin, which then closes (default: nothing). */
  input?: string;
  /** Killed (and failed, code null) after this long; default 5 minutes. */
  timeoutMs?: number;
}

/** Runs `command` through `sh -c` in `cwd` and resolves when it exits (never rejects). */
export function typed(command: string, cwd: string, env: NodeJS.ProcessEnv, options: TypedOptions = {}): Promise<Done> {
  const started = Date.now();
  return new Promise((resolve) => {
    // Its own process group, so a timeout kills what npx or npm run started under it too.
    const child = spawn("sh", ["-c", command], { cwd, env, stdio: ["pipe", "pipe", "pipe"], detached: true });
    const seen = collect(child);
    child.stdin.on("error", () => {});
    child.stdin.end(options.input ?? "");
    const timeoutMs = options.timeoutMs ?? 5 * MINUTE;
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid, "SIGKILL");
    }, timeoutMs);
    child.once("error", (error) => {
      clearTimeout(timer);
      resolve({ code: -1, output: `${seen.output}\n${error.message}`, stdout: seen.stdout, ms: Date.now() - started });
    });
    child.once("close", (code) => {
      clearTimeout(timer);
      const output = timedOut ? `${seen.output}\n(killed: still running after ${timeoutMs} ms)` : seen.output;
      resolve({ code, output, stdout: seen.stdout, ms: Date.now() - started });
    });
  });
}

function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  try {
    if (pid !== undefined) process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

/** A long-running command started by {@link serving}. */
export interface Serving {
  /** Resolves with the match of `ready` in its output; rejects if it exits first or is not ready in time. */
  readonly up: Promise<RegExpExecArray>;
  /** Resolves with its exit code once it has exited. */
  readonly exited: Promise<number | null>;
  /**
   * SIGTERMs its process group, and SIGKILLs it if still running after `graceMs`.
   * Resolves once it has exited: `killed` when SIGTERM was not enough.
   */
  stop(graceMs?: number): Promise<{ killed: boolean }>;
  /** Resolves with the first match of `pattern` in its output so far or to come (rejects after `withinMs` or on exit). */
  until(pattern: RegExp, withinMs?: number): Promise<RegExpExecArray>;
  /** Writes to its stdin. */
  send(text: string): void;
  /** Closes its stdin. */
  end(): void;
  /** Everything it wrote so far, stdout and stderr interleaved. */
  output(): string;
}

/**
 * Starts `command` through `sh -c` in its own process group and watches for `ready`.
 * Its stdin stays open (a stdio server would take EOF for the end of the session) until
 * `end()` or `stop()`.
 */
export function serving(
  command: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
  ready: RegExp,
  readyMs = MINUTE,
): Serving {
  const child = spawn("sh", ["-c", command], { cwd, env, stdio: ["pipe", "pipe", "pipe"], detached: true });
  child.stdin.on("error", () => {});
  const seen = collect(child);
  const exited = new Promise<number | null>((resolve) => child.once("close", resolve));
  const until = (pattern: RegExp, withinMs = MINUTE) =>
    new Promise<RegExpExecArray>((resolve, reject) => {
      const settle = () => {
        clearTimeout(timer);
        child.stdout.off("data", look);
        child.stderr.off("data", look);
      };
      const timer = setTimeout(() => {
        settle();
        reject(new Error(`${command}: no ${pattern} within ${withinMs / 1000} s:\n${seen.output}`));
      }, withinMs);
      // After collect's listeners (registered first), so seen.output holds the chunk.
      const look = () => {
        const found = pattern.exec(seen.output);
        if (found === null) return;
        settle();
        resolve(found);
      };
      child.stdout.on("data", look);
      child.stderr.on("data", look);
      void exited.then((code) => {
        settle();
        reject(new Error(`${command} exited (${code}) before printing ${pattern}:\n${seen.output}`));
      });
      look();
    });
  const up = until(ready, readyMs);
  up.catch(() => {}); // the caller may never await it (a stop before ready)
  const stop = async (graceMs = 10_000) => {
    let killed = false;
    child.stdin.end();
    killGroup(child.pid, "SIGTERM");
    const timer = setTimeout(() => {
      killed = true;
      killGroup(child.pid, "SIGKILL");
    }, graceMs);
    await exited;
    clearTimeout(timer);
    return { killed };
  };
  return {
    up,
    exited,
    stop,
    until,
    send: (text) => child.stdin.write(text),
    end: () => child.stdin.end(),
    output: () => seen.output,
  };
}

/**
 * True when an `ocp inspect` report failed only the exit checks, on their time limit: they
 * allow 2 s after EOF or shutdown, and on a loaded machine a provider still loading its
 * tokenizer (right after the handshake) can miss that whatever the command. Such a run,
 * and only such a run, is worth one more try.
 */
export function missedOnlyExitTiming(report: string): boolean {
  const failed = report.split("\n").filter((line) => line.startsWith(" ✗ "));
  return (
    failed.length > 0 && failed.every((line) => /^ ✗ (eof-exit|shutdown-clean) +still running \d+ ms after/.test(line))
  );
}

/**
 * True when a generated project's `npm test` failed only its conformance test, and that
 * only on the exit checks' time limit (the vitest diff lists the failed checks as
 * `"name"`/`"evidence"` pairs): the same load-bound miss as {@link missedOnlyExitTiming},
 * seen through the project's own test. Such a run, and only such a run, is worth one more try.
 */
export function testMissedOnlyExitTiming(output: string): boolean {
  if (!/Tests\s+1 failed/.test(output) || !/× passes the OCP conformance suite/.test(output)) return false;
  const names = [...output.matchAll(/"name": "([^"]*)"/g)].map((match) => match[1]);
  const evidence = [...output.matchAll(/"evidence": "([^"]*)"/g)].map((match) => match[1] as string);
  return (
    names.length > 0 &&
    names.length === evidence.length &&
    names.every((name) => name === "eof-exit" || name === "shutdown-clean") &&
    evidence.every((text) => /^still running \d+ ms after/.test(text))
  );
}
