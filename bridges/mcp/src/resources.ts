/**
 * Resource links and `resources/read`: every frame with a `file://` or `fact://` uri
 * gets a `resource_link`, and a client may read what a link names — the whole file as
 * it is on disk now, or the fact as the provider serves it now.
 *
 * Only what the bridge has linked can be read, and a file only inside the provider's
 * root: a link is an answer the provider already gave, so reading it discloses nothing
 * new, while a bare `file://` reader would serve anything under the root (the
 * provider's plugins may skip hidden or ignored files; a reader must not un-skip them).
 * A link stays readable by any session of the bridge (a client that reconnects keeps
 * its links), but `resources/list` lists a session's own links only.
 *
 * Nothing is served from a copy kept here. A file is read from disk at read time; a fact
 * is asked of the provider again (by its own words, at the valid and system time of the
 * question that linked it), so a fact erased, retracted or corrected since is served as
 * the provider serves it now — or not at all, and then it leaves every list. A frame
 * with no source the bridge can go back to (any other scheme, no uri) gets no link.
 */
import { extname, isAbsolute, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { RootReader } from "ocp-provider/fs";
import type { ContextFrame, ContextQueryResult, FrameKind } from "ocp-provider/wire";
import { MCP_ERROR_CODES, McpBridgeError } from "./errors.js";

/** Largest file `resources/read` returns. */
export const MAX_RESOURCE_BYTES = 4 * 1024 * 1024;

/** A link as the tool result carries it. */
export interface ResourceLink {
  type: "resource_link";
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
}

/** What `resources/read` returns for one uri. */
export interface ResourceContents {
  uri: string;
  mimeType: string;
  text: string;
  _meta?: Record<string, unknown>;
}

/**
 * A question to the provider for one fact again: its own words, its kind, and the time
 * fields (`as_of`, extension fields such as `as_known_at`) of the question that linked it.
 */
export interface FactQuestion {
  goal: string;
  query_text: string;
  kinds: FrameKind[];
  [field: string]: unknown;
}

/**
 * Asks the provider (budgets and time bound are the caller's). Rejects with an error whose
 * message may be shown to the client as is.
 */
export type AskProvider = (question: FactQuestion, signal?: AbortSignal) => Promise<ContextQueryResult>;

/** Options of {@link ResourceRegistry}. */
export interface ResourceRegistryOptions {
  /** The provider's root: files are linked and read only inside it. */
  root: string;
  /** Asks the provider again: what reading a `fact:` link serves. */
  ask: AskProvider;
  /** Most links kept (the most recently linked); default 10 000. */
  capacity?: number;
  /** Most bytes kept to ask for facts again (their words and time fields); default 16 MiB. */
  maxBytes?: number;
}

interface Linked {
  readonly uri: string;
  readonly name: string;
  readonly mimeType: string;
  /** The file's absolute path, for `file:` links. */
  readonly path?: string;
  /** For `fact:` links: how to ask the provider for it again. */
  readonly question?: FactQuestion;
  /** What this entry counts against `maxBytes`. */
  readonly bytes: number;
}

const MIME_TYPES: Record<string, string> = {
  ".md": "text/markdown",
  ".markdown": "text/markdown",
  ".json": "application/json",
  ".html": "text/html",
  ".csv": "text/csv",
};

/** A uri as the SDK hands it to a read callback (WHATWG URL form); undefined if it is not a URL. */
function normalized(uri: string): string | undefined {
  try {
    return new URL(uri).href;
  } catch {
    return undefined;
  }
}

/** True if `path` lies strictly under `root` (paths as written; the reader re-checks at read time). */
function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel !== "" && !rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel);
}

/** One confined reader per root: the root's real path is resolved once. */
const readers = new Map<string, RootReader>();

/**
 * Reads a regular file inside `root` and nowhere else, through the framework's
 * root-confined reader (the one every plugin reads with): a symlink as the last
 * component is refused at open time, and the file opened must lie under the root's
 * real path, so swapping a directory for a link between check and open is caught.
 */
export async function readInsideRoot(root: string, path: string, maxBytes = MAX_RESOURCE_BYTES): Promise<string> {
  let reader = readers.get(root);
  if (reader === undefined) {
    reader = new RootReader(root);
    readers.set(root, reader);
  }
  const relativePath = relative(root, path);
  const { bytes } = await reader.readFile(relativePath, { maxBytes });
  return new TextDecoder("utf-8").decode(bytes);
}

/** The links of one client session, as {@link ResourceRegistry.session} makes it. */
export interface SessionResources {
  /** Links the frames (see {@link ResourceRegistry.link}) and lists them for this session. */
  link(frames: readonly ContextFrame[], asked?: Readonly<Record<string, unknown>>): ResourceLink[];
  /** This session's links still readable, most recent last (the most recent `limit`). */
  list(scheme: "file:" | "fact:", limit?: number): { uri: string; name: string; mimeType: string }[];
  /** Reads a uri the bridge linked (in any session). */
  read(uri: string, signal?: AbortSignal): Promise<ResourceContents>;
}

/** The uris the bridge has linked (the most recent `capacity`), reading them, and each session's list. */
export class ResourceRegistry {
  private readonly linked = new Map<string, Linked>();
  private readonly root: string;
  private readonly ask: AskProvider;
  private readonly capacity: number;
  private readonly maxBytes: number;
  private bytes = 0;

  constructor(options: ResourceRegistryOptions) {
    this.root = options.root;
    this.ask = options.ask;
    this.capacity = options.capacity ?? 10_000;
    this.maxBytes = options.maxBytes ?? 16 * 1024 * 1024;
  }

  /** A session's view: it lists only what it linked (its most recent `capacity`), and reads like the registry. */
  session(capacity = 1000): SessionResources {
    const own = new Set<string>();
    return {
      link: (frames, asked) => {
        const links = this.link(frames, asked);
        for (const { uri } of links) {
          own.delete(uri); // re-added: the set stays in least-recently-linked order
          own.add(uri);
          if (own.size > capacity) own.delete(own.values().next().value as string);
        }
        return links;
      },
      list: (scheme, limit = 1000) => this.list(scheme, limit, own),
      read: (uri, signal) => this.read(uri, signal),
    };
  }

  /**
   * Records the frames' uris and returns one link per distinct `file:`/`fact:` uri, in
   * frame order. `asked` holds the time fields of the question they answer (`as_of`,
   * extension fields): a fact is asked for again at the same times.
   */
  link(frames: readonly ContextFrame[], asked: Readonly<Record<string, unknown>> = {}): ResourceLink[] {
    const links: ResourceLink[] = [];
    const seen = new Set<string>();
    const askedBytes = JSON.stringify(asked).length;
    for (const frame of frames) {
      const uri = frame.uri === undefined ? undefined : normalized(frame.uri);
      if (uri === undefined || seen.has(uri)) continue;
      const entry = this.entryFor(uri, frame, asked, askedBytes);
      if (entry === undefined) continue;
      seen.add(uri);
      this.remember(entry);
      links.push({
        type: "resource_link",
        uri,
        name: entry.name,
        title: frame.title,
        ...(frame.citation_label !== undefined ? { description: frame.citation_label } : {}),
        mimeType: entry.mimeType,
      });
    }
    return links;
  }

  /** The linked resources (of `among` only, in its order, when given), most recent last. */
  list(
    scheme: "file:" | "fact:",
    limit = 1000,
    among?: Iterable<string>,
  ): { uri: string; name: string; mimeType: string }[] {
    const entries =
      among === undefined
        ? [...this.linked.values()]
        : [...among].flatMap((uri) => {
            const entry = this.linked.get(uri);
            return entry === undefined ? [] : [entry];
          });
    const all = entries.filter((entry) => entry.uri.startsWith(scheme));
    return all.slice(-limit).map(({ uri, name, mimeType }) => ({ uri, name, mimeType }));
  }

  /**
   * Reads a linked uri from its source; throws a {@link McpBridgeError} (`OCP_ERR_MCP_RESOURCE`)
   * for a uri this session was not linked, and for one its source no longer gives.
   */
  async read(uri: string, signal?: AbortSignal): Promise<ResourceContents> {
    const key = normalized(uri) ?? uri;
    const entry = this.linked.get(key);
    const fail = (why: string, cause?: unknown) =>
      new McpBridgeError(MCP_ERROR_CODES.RESOURCE, `cannot read ${uri}: ${why}`, { cause });
    if (entry === undefined) throw fail("no answer of this bridge linked it");
    if (entry.question !== undefined) return this.readFact(entry, entry.question, uri, fail, signal);
    try {
      return { uri, mimeType: entry.mimeType, text: await readInsideRoot(this.root, entry.path as string) };
    } catch (error) {
      // A refusal's message names the path and the reason (a symlink, outside the root, too large).
      const why = (error as { code?: string }).code === "ENOENT" ? "no such file" : (error as Error).message;
      throw fail(why, error);
    }
  }

  /** Asks the provider for the fact again and serves its answer; a fact it no longer serves is forgotten. */
  private async readFact(
    entry: Linked,
    question: FactQuestion,
    uri: string,
    fail: (why: string, cause?: unknown) => McpBridgeError,
    signal: AbortSignal | undefined,
  ): Promise<ResourceContents> {
    let answer: ContextQueryResult;
    try {
      answer = await this.ask(question, signal);
    } catch (error) {
      throw fail(`the provider could not be asked for it again: ${(error as Error).message}`, error);
    }
    const frame = answer.frames.find(
      (candidate) => candidate.uri !== undefined && normalized(candidate.uri) === entry.uri,
    );
    if (frame === undefined) {
      this.forget(entry.uri);
      throw fail(
        "the provider no longer serves it (erased, retracted, or not valid at the time asked); ask get_context again",
      );
    }
    const meta = {
      title: frame.title,
      citation_label: frame.citation_label,
      valid_from: frame.valid_from,
      valid_to: frame.valid_to,
      recorded_at: frame.recorded_at,
      provenance: frame.provenance,
    };
    return { uri, mimeType: entry.mimeType, text: frame.content, _meta: { "ocp/frame": meta } };
  }

  /** The entry a frame's uri gets; undefined for one the bridge cannot go back to (another scheme, outside the root). */
  private entryFor(
    uri: string,
    frame: ContextFrame,
    asked: Readonly<Record<string, unknown>>,
    askedBytes: number,
  ): Linked | undefined {
    if (uri.startsWith("file:")) {
      let path: string;
      try {
        path = fileURLToPath(uri);
      } catch {
        return undefined;
      }
      if (!inside(this.root, path)) return undefined;
      const name = relative(this.root, path).split(sep).join("/");
      const mimeType = MIME_TYPES[extname(path).toLowerCase()] ?? "text/plain";
      return { uri, name, mimeType, path, bytes: uri.length + path.length };
    }
    if (!uri.startsWith("fact:")) return undefined;
    const question: FactQuestion = {
      ...asked,
      goal: `${frame.title}: ${frame.content}`,
      query_text: frame.content,
      kinds: [frame.kind],
    };
    const name = frame.citation_label ?? frame.title;
    const bytes = uri.length + name.length + frame.title.length + 2 * frame.content.length + askedBytes;
    // A fact this session could not keep the words of gets no link, rather than one that cannot be read.
    if (bytes > this.maxBytes) return undefined;
    return { uri, name, mimeType: "text/plain", question, bytes };
  }

  /** Keeps `entry` as the most recent link; the oldest go beyond the capacity or the byte bound. */
  private remember(entry: Linked): void {
    this.forget(entry.uri);
    this.linked.set(entry.uri, entry);
    this.bytes += entry.bytes;
    while (this.linked.size > this.capacity || this.bytes > this.maxBytes) {
      this.forget(this.linked.keys().next().value as string);
    }
  }

  private forget(uri: string): void {
    const entry = this.linked.get(uri);
    if (entry === undefined) return;
    this.linked.delete(uri);
    this.bytes -= entry.bytes;
  }
}
