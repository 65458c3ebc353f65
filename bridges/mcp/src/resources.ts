/**
 * Resource links and `resources/read`: every frame with a `file://` or `fact://` uri
 * gets a `resource_link`, and a client may read what a link names — the whole file,
 * or the fact as the provider served it.
 *
 * Only what the bridge has linked can be read, and a file only inside the provider's
 * root: a link is an answer the provider already gave, so reading it discloses
 * nothing new, while a bare `file://` reader would serve anything under the root
 * (the provider's plugins may skip hidden or ignored files; a reader must not
 * un-skip them).
 */
import { extname, isAbsolute, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { RootReader } from "ocp-provider/fs";
import type { ContextFrame } from "ocp-provider/wire";
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

interface Linked {
  readonly uri: string;
  /** The file's absolute path, for `file:` links. */
  readonly path?: string;
  readonly name: string;
  readonly mimeType: string;
  /** The frame last served under the uri: what a `fact:` link reads back. */
  frame: ContextFrame;
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

/** The uris the bridge has linked (the most recent `capacity`), and reading them. */
export class ResourceRegistry {
  private readonly linked = new Map<string, Linked>();

  constructor(
    private readonly root: string,
    private readonly capacity = 10_000,
  ) {}

  /** Records the frames' uris and returns one link per distinct `file:`/`fact:` uri, in frame order. */
  link(frames: readonly ContextFrame[]): ResourceLink[] {
    const links: ResourceLink[] = [];
    const seen = new Set<string>();
    for (const frame of frames) {
      const uri = frame.uri === undefined ? undefined : normalized(frame.uri);
      if (uri === undefined || seen.has(uri)) continue;
      const entry = this.remember(uri, frame);
      if (entry === undefined) continue;
      seen.add(uri);
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

  /** The linked resources, most recent last, for `resources/list`. */
  list(scheme: "file:" | "fact:", limit = 1000): { uri: string; name: string; mimeType: string }[] {
    const all = [...this.linked.values()].filter((entry) => entry.uri.startsWith(scheme));
    return all.slice(-limit).map(({ uri, name, mimeType }) => ({ uri, name, mimeType }));
  }

  /** Reads a linked uri; throws a {@link McpBridgeError} (`OCP_ERR_MCP_RESOURCE`) otherwise. */
  async read(uri: string): Promise<ResourceContents> {
    const entry = this.linked.get(normalized(uri) ?? uri);
    const fail = (why: string, cause?: unknown) =>
      new McpBridgeError(MCP_ERROR_CODES.RESOURCE, `cannot read ${uri}: ${why}`, { cause });
    if (entry === undefined) throw fail("no answer of this bridge linked it");
    if (entry.path === undefined) {
      const { frame } = entry;
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
    try {
      return { uri, mimeType: entry.mimeType, text: await readInsideRoot(this.root, entry.path) };
    } catch (error) {
      // A refusal's message names the path and the reason (a symlink, outside the root, too large).
      const why = (error as { code?: string }).code === "ENOENT" ? "no such file" : (error as Error).message;
      throw fail(why, error);
    }
  }

  /** Remembers a uri the bridge can serve; undefined for one it cannot (another scheme, a file outside the root). */
  private remember(uri: string, frame: ContextFrame): Linked | undefined {
    let entry = this.linked.get(uri);
    if (entry === undefined) {
      if (uri.startsWith("file:")) {
        let path: string;
        try {
          path = fileURLToPath(uri);
        } catch {
          return undefined;
        }
        if (!inside(this.root, path)) return undefined;
        const name = relative(this.root, path).split(sep).join("/");
        entry = { uri, path, name, mimeType: MIME_TYPES[extname(path).toLowerCase()] ?? "text/plain", frame };
      } else if (uri.startsWith("fact:")) {
        entry = { uri, name: frame.citation_label ?? frame.title, mimeType: "text/plain", frame };
      } else {
        return undefined;
      }
    } else {
      this.linked.delete(uri); // re-inserted below: the map stays in least-recently-linked order
      // The same frame cut shorter by a smaller budget must not replace the whole one.
      const cutShorter = entry.frame.id === frame.id && entry.frame.content.length > frame.content.length;
      if (!cutShorter) entry.frame = frame;
    }
    this.linked.set(uri, entry);
    if (this.linked.size > this.capacity) this.linked.delete(this.linked.keys().next().value as string);
    return entry;
  }
}
