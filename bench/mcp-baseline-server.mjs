/**
 * The floor for the MCP benchmark: a bare SDK McpServer over stdio whose one tool,
 * `get_context`, answers every call with a canned result — the bridge's own reply to
 * the benchmark's query, read from the JSON file named on the command line, so both
 * servers send replies of the same size. No provider, no search, no rendering, no
 * output schema to check. Plain JavaScript, so `node` runs it directly.
 */
import { readFileSync } from "node:fs";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const reply = JSON.parse(readFileSync(process.argv[2], "utf8"));
const server = new McpServer({ name: "bare", version: "0.0.0" });
server.registerTool(
  "get_context",
  { description: "canned", inputSchema: { goal: z.string(), max_tokens: z.number().optional() } },
  () => reply,
);
await server.connect(new StdioServerTransport());
process.stdin.once("end", () => process.exit(0));
