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

/** An object's header, as `git cat-file --batch-check` and `--batch` give it. */
export interface ObjectInfo {
  /** The object id. */
  readonly oid: string;
  /** The object's type: `blob` for file content, `commit`, `tree`, `tag`. */
  readonly type: string;
  /** Its size in bytes. */
  readonly size: number;
}

/** One object read by {@link BlobReader}. */
export interface Blob extends ObjectInfo {
  /** The content; undefined when the object is larger than the read allowed (it was never read). */
  readonly content?: Buffer;
}

/** One reply of `git cat-file`: an object's header (and content, in `--batch` mode), or none for a missing name. */
export type BatchReply = { readonly info: ObjectInfo; readonly content?: Buffer } | undefined;

const OBJECT_HEADER = /^([0-9a-f]{40,64}) ([a-z]+) (\d+)$/;

/**
 * Parses the output of `git cat-file --batch` (header line, content, newline) or
 * `--batch-check` (header lines only) from chunks as they arrive. Linear: each content
 * byte is copied once, into a buffer of the size the header announced; only the
 * (short) header line is ever carried from one chunk to the next.
 */
export class BatchReplyParser {
  readonly #withContent: boolean;
  /** Bytes of a header line that began in an earlier chunk. */
  #header: Buffer[] = [];
  #headerBytes = 0;
  /** The object whose content is being filled, and how much of it (+1 for the newline after it) is still to come. */
  #body: { info: ObjectInfo; content: Buffer; filled: number } | undefined;
  #newlineDue = false;

  /** `withContent`: `--batch` (true) or `--batch-check` (false). */
  constructor(withContent: boolean) {
    this.#withContent = withContent;
  }

  /** Takes the next chunk of output; returns the replies it completed, in order. */
  push(chunk: Buffer): BatchReply[] {
    const replies: BatchReply[] = [];
    let at = 0;
    while (at < chunk.length) {
      if (this.#body !== undefined) {
        const body = this.#body;
        const take = Math.min(body.content.length - body.filled, chunk.length - at);
        chunk.copy(body.content, body.filled, at, at + take);
        body.filled += take;
        at += take;
        if (body.filled < body.content.length) break;
        this.#body = undefined;
        this.#newlineDue = true;
        replies.push({ info: body.info, content: body.content });
        continue;
      }
      if (this.#newlineDue) {
        // git ends each object's content with a newline of its own.
        this.#newlineDue = false;
        if (chunk[at] === 10) at++;
        continue;
      }
      const newline = chunk.indexOf(10, at);
      if (newline < 0) {
        this.#keepHeader(chunk.subarray(at));
        break;
      }
      this.#keepHeader(chunk.subarray(at, newline));
      at = newline + 1;
      const header = Buffer.concat(this.#header, this.#headerBytes).toString("utf8");
      this.#header = [];
      this.#headerBytes = 0;
      const match = OBJECT_HEADER.exec(header);
      if (match === null) {
        // "<name> missing", "<name> ambiguous": no such object, and nothing follows.
        replies.push(undefined);
        continue;
      }
      const info = { oid: match[1] as string, type: match[2] as string, size: Number(match[3]) };
      if (!this.#withContent) {
        replies.push({ info });
        continue;
      }
      this.#body = { info, content: Buffer.allocUnsafe(info.size), filled: 0 };
      if (info.size === 0) {
        this.#body = undefined;
        this.#newlineDue = true;
        replies.push({ info, content: Buffer.alloc(0) });
      }
    }
    return replies;
  }

  #keepHeader(piece: Buffer): void {
    if (piece.length === 0) return;
    this.#headerBytes += piece.length;
    // A header is an object id, a type and a size, or a name we sent: never this long.
    if (this.#headerBytes > 64 * 1024)
      throw new OcpError(ERROR_CODES.EVAL, "git cat-file wrote a header line over 64 KiB");
    this.#header.push(Buffer.from(piece));
  }
}

/** A long-running `git cat-file --batch` or `--batch-check`, answering names in the order they were sent. */
class CatFile {
  readonly #child;
  readonly #parser: BatchReplyParser;
  readonly #waiting: { resolve(reply: BatchReply): void; reject(error: Error): void }[] = [];
  #failure: Error | undefined;

  constructor(repo: string, withContent: boolean) {
    this.#parser = new BatchReplyParser(withContent);
    const fail = (error: Error) => {
      this.#failure ??= error;
      for (const waiter of this.#waiting.splice(0)) waiter.reject(this.#failure);
    };
    const mode = withContent ? "--batch" : "--batch-check";
    this.#child = spawn("git", ["-C", repo, "cat-file", mode], { stdio: ["pipe", "pipe", "pipe"] });
    this.#child.stdout.on("data", (chunk: Buffer) => {
      let replies: BatchReply[];
      try {
        replies = this.#parser.push(chunk);
      } catch (error) {
        fail(error as Error);
        this.#child.kill();
        return;
      }
      for (const reply of replies) this.#waiting.shift()?.resolve(reply);
    });
    let stderr = "";
    this.#child.stderr.setEncoding("utf8");
    this.#child.stderr.on("data", (chunk: string) => {
      stderr = (stderr + chunk).slice(-4096);
    });
    this.#child.on("error", (error) => fail(new OcpError(ERROR_CODES.EVAL, `git cat-file: ${error.message}`)));
    // 'close', not 'exit': the message is git's last stderr line, which can arrive after the exit.
    this.#child.on("close", () => fail(new OcpError(ERROR_CODES.EVAL, `git cat-file ended: ${stderr.trim()}`)));
    this.#child.stdin.on("error", () => {});
  }

  ask(name: string): Promise<BatchReply> {
    if (this.#failure !== undefined) return Promise.reject(this.#failure);
    return new Promise((resolve, reject) => {
      this.#waiting.push({ resolve, reject });
      this.#child.stdin.write(`${name}\n`);
    });
  }

  async close(): Promise<void> {
    if (this.#child.exitCode !== null || this.#child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => this.#child.once("exit", () => resolve()));
    this.#child.stdin.end();
    await exited;
  }
}

/**
 * Reads objects by name (`<commit>:<path>` or an object id) exactly as stored, with no
 * attribute conversion (eol, working-tree-encoding), so a tree written from it holds the
 * bytes a commit's diff was made from. Two long-running git processes: `cat-file
 * --batch-check` tells an object's size, so one over a read's limit is never read, and
 * `cat-file --batch` reads the rest.
 */
export class BlobReader {
  readonly #repo: string;
  #contents: CatFile | undefined;
  #headers: CatFile | undefined;

  constructor(repo: string) {
    this.#repo = repo;
  }

  /** An object's id, type and size, without reading it; undefined when it does not exist. */
  async info(name: string): Promise<ObjectInfo | undefined> {
    if (/[\r\n]/.test(name)) return undefined;
    this.#headers ??= new CatFile(this.#repo, false);
    return (await this.#headers.ask(name))?.info;
  }

  /**
   * Reads one object; resolves undefined when it does not exist. With `maxBytes`, its size
   * is asked first and an object larger than that comes back without content, unread.
   */
  async read(name: string, maxBytes?: number): Promise<Blob | undefined> {
    if (/[\r\n]/.test(name)) return undefined;
    let target = name;
    if (maxBytes !== undefined) {
      const info = await this.info(name);
      if (info === undefined) return undefined;
      if (info.size > maxBytes) return info;
      target = info.oid;
    }
    this.#contents ??= new CatFile(this.#repo, true);
    const reply = await this.#contents.ask(target);
    return reply === undefined ? undefined : { ...reply.info, content: reply.content };
  }

  /** Ends the git processes. */
  async close(): Promise<void> {
    await Promise.all([this.#contents?.close(), this.#headers?.close()]);
  }
}
