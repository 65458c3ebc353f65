import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { ERROR_CODES } from "../provider/errors.js";
import { loadMcpBridge, MCP_BRIDGE_PACKAGE } from "./mcp-bridge.js";

describe("loadMcpBridge", () => {
  it("loads the bridge package when it is installed", async () => {
    const bridge = await loadMcpBridge();
    expect(typeof bridge.runMcp).toBe("function");
    expect(MCP_BRIDGE_PACKAGE).toBe("ocp-provider-mcp");
  });

  it("is no dependency of the core: a provider that never speaks MCP installs none of it", () => {
    const manifest = createRequire(import.meta.url)("../../package.json") as Record<string, Record<string, unknown>>;
    const installed = Object.keys({ ...manifest.dependencies, ...manifest.optionalDependencies });
    expect(installed.filter((name) => /modelcontextprotocol|ocp-provider-mcp/.test(name))).toEqual([]);
    expect(manifest.peerDependenciesMeta?.[MCP_BRIDGE_PACKAGE]).toEqual({ optional: true });
  });

  it("names the package to install when it is absent", async () => {
    // A real import of a package that is not installed: the same failure as a missing bridge.
    const missing = "ocp-provider-mcp-that-is-not-installed";
    await expect(loadMcpBridge(undefined, missing)).rejects.toMatchObject({
      code: ERROR_CODES.MODULE_LOAD,
      message: `serving over MCP needs the package ${missing}, which is not installed: npm install ${missing}`,
    });
  });

  it("reports a broken install as it is, and a package without runMcp as unusable", async () => {
    const brokenDependency = Object.assign(new Error("Cannot find package '@modelcontextprotocol/sdk'"), {
      code: "ERR_MODULE_NOT_FOUND",
    });
    await expect(loadMcpBridge(() => Promise.reject(brokenDependency))).rejects.toBe(brokenDependency);
    await expect(loadMcpBridge(() => Promise.resolve({}))).rejects.toMatchObject({
      code: ERROR_CODES.MODULE_LOAD,
      message: expect.stringMatching(/does not export runMcp/),
    });
  });
});
