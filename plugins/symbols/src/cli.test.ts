import { describe, expect, it } from "vitest";
import { parseCommandLine, parseListen } from "./cli.js";

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
    expect(parsed).toMatchObject({ help: false, index: false, http: undefined });
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

  it("reads --http as [host:]port and refuses what cannot work", () => {
    expect(parseListen("8080")).toEqual({ host: "127.0.0.1", port: 8080 });
    expect(parseListen("0.0.0.0:9000")).toEqual({ host: "0.0.0.0", port: 9000 });
    expect(parseListen("[::1]:7")).toEqual({ host: "::1", port: 7 });
    expect(() => parseListen("99999")).toThrow(/\[host:\]port/);
    expect(() => parseCommandLine(["--token", "t"])).toThrow(/--token needs --http/);
    expect(() => parseCommandLine(["--index", "--http", "1"])).toThrow(/--index builds and exits/);
    expect(() => parseCommandLine(["--index", "--mcp"])).toThrow(/--index builds and exits: no --mcp/);
    expect(parseCommandLine(["--mcp"])).toMatchObject({ mcp: true, index: false });
    expect(() => parseCommandLine(["--workers", "two"])).toThrow(/whole number/);
    expect(() => parseCommandLine(["--bogus"])).toThrow(/unknown option .--bogus./);
  });
});
