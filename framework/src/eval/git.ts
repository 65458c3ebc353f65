/**
 * The real `git`, run as a child process: the commands `ocp eval` needs to mine a
 * history and read the trees of its commits, and nothing that writes to the repository
 * (a mirror or a bare clone works as well as a checkout).
 */
import { execFile, spawn } from "node:child_process";
import { promisify } from "node:util";
import { ERROR_CODES, OcpError } from "../provider/errors.js";

const execFileAsync = promisify(execFile);

/** Runs `git args` in `repo`; resolves with stdout, rejects with git's own message. */
export async function git(repo: string, args: readonly string[], maxBuffer = 256 * 1024 * 1024): Promise<string> {
  try {
    const { stdout } = await execFileAsync("git", ["-C", repo, ...args], { maxBuffer, encoding: "utf8" });
    return stdout;
  } catch (error) {
    const failed = error as NodeJS.ErrnoException & { stderr?: string };
    if (failed.code === "ENOENT") throw new OcpError(ERROR_CODES.EVAL, "ocp eval needs git on PATH");
    const why = (failed.stderr ?? "").trim() || failed.message;
    throw new OcpError(ERROR_CODES.EVAL, `git ${args[0]} in '${repo}' failed: ${why}`);
  }
}

/** What {@link openRepository} learnt about a repository. */
export interface RepositoryInfo {
  /** The repository as given. */
  readonly path: string;
  /** The commit id `rev` resolved to. */
  readonly head: string;
  /** True for a shallow clone: its oldest commits have no parents here. */
  readonly shallow: boolean;
}

/** Checks that `path` is a git repository and resolves `rev` to a commit id. */
export async function openRepository(path: string, rev: string): Promise<RepositoryInfo> {
  try {
    await git(path, ["rev-parse", "--git-dir"]);
  } catch {
    throw new OcpError(ERROR_CODES.EVAL, `'${path}' is not a git repository (ocp eval --repo needs one)`);
  }
  let head: string;
  try {
    head = (await git(path, ["rev-parse", "--verify", "--end-of-options", `${rev}^{commit}`])).trim();
  } catch {
    throw new OcpError(ERROR_CODES.EVAL, `'${rev}' is not a commit of '${path}'`);
  }
  const shallow = (await git(path, ["rev-parse", "--is-shallow-repository"])).trim() === "true";
  return { path, head, shallow };
}

/** One object read by {@link BlobReader}. */
export interface Blob {
  /** The object's type: `blob` for file content. */
  readonly type: string;
  readonly content: Buffer;
}

/**
 * A long-running `git cat-file --batch`: reads objects by name (`<commit>:<path>` or an
 * object id) exactly as stored, with no attribute conversion (eol, working-tree-encoding),
 * so a tree written from it holds the bytes a commit's diff was made from.
 */
export class BlobReader {
  readonly #child;
  #buffer: Buffer = Buffer.alloc(0);
  readonly #waiting: { resolve(blob: Blob | undefined): void; reject(error: Error): void }[] = [];
  #failure: Error | undefined;

  constructor(repo: string) {
    this.#child = spawn("git", ["-C", repo, "cat-file", "--batch"], { stdio: ["pipe", "pipe", "pipe"] });
    this.#child.stdout.on("data", (chunk: Buffer) => {
      this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk]);
      this.#drain();
    });
    let stderr = "";
    this.#child.stderr.setEncoding("utf8");
    this.#child.stderr.on("data", (chunk: string) => {
      stderr = (stderr + chunk).slice(-4096);
    });
    const fail = (error: Error) => {
      this.#failure ??= error;
      for (const waiter of this.#waiting.splice(0)) waiter.reject(this.#failure);
    };
    this.#child.on("error", (error) => fail(new OcpError(ERROR_CODES.EVAL, `git cat-file: ${error.message}`)));
    this.#child.on("exit", () => fail(new OcpError(ERROR_CODES.EVAL, `git cat-file ended: ${stderr.trim()}`)));
    this.#child.stdin.on("error", () => {});
  }

  /** Reads one object; resolves undefined when it does not exist. */
  read(name: string): Promise<Blob | undefined> {
    if (this.#failure !== undefined) return Promise.reject(this.#failure);
    if (/[\r\n]/.test(name)) return Promise.resolve(undefined);
    return new Promise((resolve, reject) => {
      this.#waiting.push({ resolve, reject });
      this.#child.stdin.write(`${name}\n`);
    });
  }

  /** Parses as many complete replies as the buffer holds, in request order. */
  #drain(): void {
    for (;;) {
      const newline = this.#buffer.indexOf(10);
      if (newline < 0) return;
      const header = this.#buffer.subarray(0, newline).toString("utf8");
      if (header.endsWith(" missing") || header.endsWith(" ambiguous")) {
        this.#buffer = this.#buffer.subarray(newline + 1);
        this.#waiting.shift()?.resolve(undefined);
        continue;
      }
      const [, type, size] = header.split(" ");
      const length = Number(size);
      // The content and the newline git writes after it.
      if (this.#buffer.length < newline + 1 + length + 1) return;
      const content = Buffer.from(this.#buffer.subarray(newline + 1, newline + 1 + length));
      this.#buffer = this.#buffer.subarray(newline + 1 + length + 1);
      this.#waiting.shift()?.resolve({ type: type ?? "", content });
    }
  }

  /** Ends the git process. */
  async close(): Promise<void> {
    if (this.#child.exitCode !== null || this.#child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => this.#child.once("exit", () => resolve()));
    this.#child.stdin.end();
    await exited;
  }
}
