/**
 * The bridge as the MCP Inspector's CLI mode sees it (`@modelcontextprotocol/inspector`
 * 2.12.0, a client we did not write): over stdio it lists the tool with no schema
 * portability problem (`--strict`) and rejects a bad call; over HTTP it calls the tool
 * and reads the file the answer links. Each Inspector run is its own process (and, over
 * stdio, starts its own bridge), so the linked resource is read from the long-running
 * HTTP bridge, whose links outlive a client session.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { ContextQueryResultSchema } from "ocp-provider/wire";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Child, OCP_BIN, REPO, spawnNode } from "../test-support/child.js";
import { listeningUrl } from "../test-support/listening.js";
import { referenceCount } from "../test-support/mcp.js";

const BRIDGE = [OCP_BIN, "mcp", "examples/docs-provider.ts"];

/** The `mcp-inspector` bin, as `npx mcp-inspector` runs it. */
const INSPECTOR = (() => {
  const require = createRequire(import.meta.url);
  const manifest = require.resolve("@modelcontextprotocol/inspector/package.json");
  const { bin } = require(manifest) as { bin: Record<string, string> };
  return join(dirname(manifest), bin["mcp-inspector"] as string);
})();

/** The environment of the outer test run, minus what would steer a nested npm or node. */
const cleanEnv = () =>
  Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !/^(npm_|VITEST|TINYPOOL|NODE_OPTIONS$)/i.test(key)),
  );

/** Runs `mcp-inspector --cli …`; resolves with its exit code, the JSON it printed and its stderr. */
function inspector(args: string[]): Promise<{ code: number | null; json: unknown; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [INSPECTOR, "--cli", ...args], {
      cwd: REPO,
      // Ad hoc (a command or URL on the command line) it reads and writes no server catalog.
      env: { ...cleanEnv(), NO_COLOR: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), 90_000);
    child.once("error", reject);
    child.once("exit", (code) => {
      clearTimeout(timer);
      try {
        resolve({ code, json: JSON.parse(stdout), stderr });
      } catch {
        reject(new Error(`inspector printed no JSON (exit ${code}):\n${stdout}\n${stderr}`));
      }
    });
  });
}

interface ToolResult {
  content: { type: string; text?: string; uri?: string }[];
  structuredContent?: unknown;
  isError?: boolean;
}

describe("the MCP Inspector CLI against ocp mcp over stdio", () => {
  it("lists the tool, with no portability problem in its schemas", async () => {
    const { code, json, stderr } = await inspector(["--strict", "node", ...BRIDGE, "--method", "tools/list"]);
    expect(code, stderr).toBe(0);
    const { tools } = json as { tools: { name: string; inputSchema: { required: string[] }; outputSchema: object }[] };
    expect(tools.map((tool) => tool.name)).toEqual(["get_context"]);
    expect(tools[0]?.inputSchema.required).toEqual(["goal"]);
    expect(tools[0]?.outputSchema).toMatchObject({ type: "object" });
  }, 120_000);

  it("gets an error result, naming the field, for a bad call", async () => {
    const { code, json } = await inspector([
      "node",
      ...BRIDGE,
      "--method",
      "tools/call",
      "--tool-name",
      "get_context",
      "--tool-arg",
      "goal=tokens",
      "--tool-arg",
      "max_tokens=5",
    ]);
    expect(code).not.toBe(0);
    const result = json as ToolResult;
    expect(result.isError).toBe(true);
    expect(result.content[0]?.text).toMatch(/max_tokens/);
  }, 120_000);
});

describe("the MCP Inspector CLI against ocp mcp over HTTP", () => {
  const TOKEN = "inspector-token";
  let bridge: Child;
  let url: string;
  beforeAll(async () => {
    bridge = spawnNode([...BRIDGE, "--http", "127.0.0.1:0", "--token", TOKEN]);
    url = await listeningUrl(bridge, 20_000);
  });
  afterAll(() => bridge.process.kill("SIGKILL"));
  const auth = ["--header", `Authorization: Bearer ${TOKEN}`];

  it("calls the tool within max_tokens and reads the file it links", async () => {
    const call = await inspector([
      "--server-url",
      url,
      "--transport",
      "http",
      ...auth,
      "--method",
      "tools/call",
      "--tool-name",
      "get_context",
      "--tool-arg",
      "goal=how are token costs counted",
      "--tool-arg",
      "max_tokens=1500",
    ]);
    expect(call.code, call.stderr).toBe(0);
    const result = call.json as ToolResult;
    const text = result.content[0]?.text as string;
    expect(referenceCount(text)).toBeLessThanOrEqual(1500);
    expect(ContextQueryResultSchema.parse(result.structuredContent).frames.length).toBeGreaterThan(0);
    const link = result.content.find((item) => item.type === "resource_link");
    expect(link?.uri).toMatch(/^file:\/\/\//);

    const read = await inspector([
      ...["--server-url", url, "--transport", "http", ...auth],
      ...["--method", "resources/read", "--uri", link?.uri as string],
    ]);
    expect(read.code, read.stderr).toBe(0);
    const { contents } = read.json as { contents: { uri: string; text: string }[] };
    expect(contents[0]?.text).toBe(readFileSync(new URL(link?.uri as string), "utf8"));
  }, 180_000);
});
