import { describe, expect, it } from "vitest";
import { parseCommandLine } from "./cli.js";

describe("ocp-symbols command line", () => {
  it("maps flags to plugin options", () => {
    const parsed = parseCommandLine([
      "--root",
      "/repo",
      "--cache-dir",
      "/cache",
      "--hidden",
      "--max-filesize",
      "2048",
      "--workers",
      "3",
      "--no-watch",
      "--no-progress",
    ]);
    expect(parsed).toMatchObject({ index: false, http: undefined });
    expect(parsed.options).toEqual({
      root: "/repo",
      cacheDir: "/cache",
      hidden: true,
      maxFileSizeBytes: 2048,
      workers: 3,
      watch: false,
      progress: false,
    });
    expect(parseCommandLine([]).options).toMatchObject({ root: process.cwd(), watch: undefined, progress: undefined });
  });

  it("indexes $OCP_ROOT without --root, as a symbols project's provider does; --root wins", () => {
    const saved = process.env.OCP_ROOT;
    try {
      process.env.OCP_ROOT = "/from/env";
      expect(parseCommandLine(["--index"]).options.root).toBe("/from/env");
      expect(parseCommandLine(["--index", "--root", "/given"]).options.root).toBe("/given");
      process.env.OCP_ROOT = "";
      expect(parseCommandLine(["--index"]).options.root).toBe(process.cwd());
    } finally {
      if (saved === undefined) delete process.env.OCP_ROOT;
      else process.env.OCP_ROOT = saved;
    }
  });

  it("reads --http as [host:]port and refuses what cannot work", () => {
    expect(parseCommandLine(["--http", "[::1]:7"]).http).toEqual({ host: "::1", port: 7 });
    expect(() => parseCommandLine(["--http", "99999"])).toThrow(/\[host:\]port/);
    expect(() => parseCommandLine(["--token", "t"])).toThrow(/--token needs --http/);
    expect(() => parseCommandLine(["--index", "--http", "1"])).toThrow(/--index builds and exits/);
    expect(() => parseCommandLine(["--index", "--mcp"])).toThrow(/--index builds and exits: no --mcp/);
    expect(parseCommandLine(["--mcp"])).toMatchObject({ mcp: {}, index: false });
    expect(() => parseCommandLine(["--workers", "two"])).toThrow(/whole number/);
    expect(() => parseCommandLine(["--bogus"])).toThrow(/unknown option .--bogus./);
  });
});
