/**
 * MCP clients for end-to-end tests: the official SDK's `Client`, connected to a real
 * child process over stdio (the SDK spawns it) or to a URL over streamable HTTP, and
 * an exact token count that does not go through the framework's counter.
 */
import { createRequire } from "node:module";
import type { Readable } from "node:stream";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { REPO } from "./child.js";

interface Tiktoken {
  get_encoding(name: string): { encode_ordinary(text: string): Uint32Array };
}
const o200k = (createRequire(import.meta.url)("tiktoken") as Tiktoken).get_encoding("o200k_base");

/** The o200k_base token count by tiktoken itself (the reference implementation, WASM), not our counter. */
export const referenceCount = (text: string): number => o200k.encode_ordinary(text).length;

/** A connected client and what its server wrote to stderr. */
export interface McpSession {
  readonly client: Client;
  /** Errors the client's transport reported (a stdout line that was not a JSON-RPC message, say). */
  readonly transportErrors: Error[];
  stderr(): string;
  close(): Promise<void>;
}

/** Spawns `node <args>` in the repository root through the SDK's stdio transport and connects. */
export async function connectStdio(args: string[], env: Record<string, string> = {}): Promise<McpSession> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args,
    cwd: REPO,
    env: { ...(process.env as Record<string, string>), ...env },
    stderr: "pipe",
  });
  let stderr = "";
  (transport.stderr as Readable | null)?.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  const client = new Client({ name: "e2e", version: "0.0.0" });
  const transportErrors: Error[] = [];
  client.onerror = (error) => transportErrors.push(error);
  try {
    await client.connect(transport);
  } catch (error) {
    throw new Error(`could not connect: ${(error as Error).message}; stderr:\n${stderr}`);
  }
  return { client, transportErrors, stderr: () => stderr, close: () => client.close() };
}

/** Connects to a streamable-HTTP MCP endpoint with these request headers. */
export async function connectHttp(url: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: "e2e", version: "0.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

/** Calls the bridge's tool. */
export const callTool = (client: Client, args: Record<string, unknown>, name = "get_context") =>
  client.callTool({ name, arguments: args }) as Promise<CallToolResult>;

/** The text block of a tool result. */
export const textOf = (result: CallToolResult): string => (result.content[0] as { text: string }).text;

/** The resource links of a tool result. */
export const linksOf = (result: CallToolResult) =>
  result.content.filter((item) => item.type === "resource_link") as { uri: string; name: string; mimeType?: string }[];
