/**
 * How scaffold-packages.test.ts names the projects it makes and runs their commands: a
 * child process's exit code and output, a project's `npm test` once more when it missed only
 * the exit checks' time limit on a loaded machine, and at most n such jobs at once.
 */
import { type SpawnOptions, spawn } from "node:child_process";
import { exitedWithOutput } from "./child.js";
import { cleanEnv, type Done, testMissedOnlyExitTiming } from "./shell.js";

/** One project of the run: a template, with its index kind, over a transport. */
export interface Case {
  template: string;
  index?: string;
  transport: "stdio" | "http";
  /** Run before installing, in the new project: a codemod a user would run. */
  codemod?: string[];
}

/** A project's name and folder: `search-index-sqlite-stdio`. */
export const nameOf = (c: Case) => [c.template, c.index, c.transport].filter(Boolean).join("-");

/** Runs a command; resolves with its exit code and interleaved output (never rejects). */
export function sh(command: string, args: string[], options: SpawnOptions & { cwd: string }): Promise<Done> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      ...options,
      env: options.env ?? cleanEnv(),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    let stdout = "";
    child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
      output += chunk;
      stdout += chunk;
    });
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      output += chunk;
    });
    child.once("error", (error) =>
      resolve({ code: -1, output: `${output}\n${error.message}`, stdout, ms: Date.now() - started }),
    );
    void exitedWithOutput(child).then(({ code }) => resolve({ code, output, stdout, ms: Date.now() - started }));
  });
}

/**
 * A project's `npm test`, run once more when it failed only the exit checks' 2 s limit
 * (see testMissedOnlyExitTiming): with two installs and tests at once on two cores, a
 * provider still loading its tokenizer can miss it whatever its code. Any other failure,
 * or a second miss, fails.
 */
export async function npmTest(dir: string): Promise<Done> {
  const first = await sh("npm", ["test"], { cwd: dir });
  if (first.code === 0 || !testMissedOnlyExitTiming(first.output)) return first;
  process.stderr.write(`scaffold-packages: ${dir}: npm test missed only the exit checks' time limit; once more\n`);
  return sh("npm", ["test"], { cwd: dir });
}

/** At most `n` jobs at once. */
export function limiter(n: number) {
  let active = 0;
  const queue: (() => void)[] = [];
  return async <T>(job: () => Promise<T>): Promise<T> => {
    if (active >= n) await new Promise<void>((resolve) => queue.push(resolve));
    active++;
    try {
      return await job();
    } finally {
      active--;
      queue.shift()?.();
    }
  };
}
