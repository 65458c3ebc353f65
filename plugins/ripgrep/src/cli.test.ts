import { describe, expect, it } from "vitest";
import { parseCommandLine } from "./cli.js";

describe("the ocp-ripgrep command line", () => {
  it("reads every option into the provider's options", () => {
    const parsed = parseCommandLine([
      "--root",
      "/srv/repo",
      "--http",
      "0.0.0.0:8080",
      "--token",
      "t",
      "--hidden",
      "--max-filesize",
      "2048",
      "--context",
      "5",
      "--timeout",
      "900",
      "--max-searches",
      "3",
      "--max-queued",
      "0",
      "--queue-timeout",
      "250",
      "--rg",
      "/usr/bin/rg",
      "--glob",
      "*.ts",
      "--glob",
      "!*.test.ts",
    ]);
    expect(parsed).toMatchObject({
      http: { host: "0.0.0.0", port: 8080 },
      token: "t",
      options: {
        root: "/srv/repo",
        hidden: true,
        maxFileSizeBytes: 2048,
        contextLines: 5,
        timeoutMs: 900,
        maxConcurrentSearches: 3,
        maxQueuedSearches: 0,
        queueTimeoutMs: 250,
        rgPath: "/usr/bin/rg",
        globs: ["*.ts", "!*.test.ts"],
      },
    });
    expect(parseCommandLine([]).options.root).toBe(process.cwd());
    expect(parseCommandLine([]).mcp).toBeUndefined();
    expect(parseCommandLine(["--mcp", "--http", "9000"])).toMatchObject({ mcp: {}, http: { port: 9000 } });
  });

  it("refuses what it cannot use, with the reason", () => {
    expect(() => parseCommandLine(["--context", "three"])).toThrow(/--context must be a whole number/);
    expect(() => parseCommandLine(["--max-searches", "1.5"])).toThrow(/--max-searches must be a whole number/);
    expect(() => parseCommandLine(["--token", "t"])).toThrow(/--token needs --http/);
    expect(() => parseCommandLine(["--http", "http://x"])).toThrow(/\[host:\]port/);
    expect(() => parseCommandLine(["--nope"])).toThrow(/nope/);
    expect(() => parseCommandLine(["positional"])).toThrow(/positional/);
  });
});
