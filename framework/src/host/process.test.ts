import { describe, expect, it } from "vitest";
import { spawnProviderProcess, stderrGist } from "./process.js";

/** Node running `script`, as a provider process. */
function node(script: string) {
  return spawnProviderProcess(process.execPath, ["-e", script]);
}

describe("spawnProviderProcess", () => {
  it("keeps the stderr a process writes just before it exits", async () => {
    // The leader exits at once; a grandchild that shares only its stderr writes the
    // reason 50 ms later. The exit must not be reported before that line is read. The
    // grandchild is a shell, not node: node's own start (~0.15 s, several times that on a
    // loaded machine) would spend the 200 ms the host waits before it wrote anything.
    const late = "sleep 0.05; echo 'fatal: the index is locked' >&2";
    const child = node(`
      const { spawn } = require("node:child_process");
      spawn("sh", ["-c", ${JSON.stringify(late)}], { stdio: ["ignore", "ignore", "inherit"] });
      process.exit(3);
    `);
    const exit = await child.exited;
    expect(exit.code).toBe(3);
    expect(stderrGist(child.stderr())).toBe("fatal: the index is locked");
    await child.stop(0);
  });

  it("keeps the last stderr line of a process that writes it and exits, every time", async () => {
    for (let run = 0; run < 10; run += 1) {
      const child = node(`process.stderr.write("crashed on a query ${run}\\n"); process.exit(1)`);
      await child.exited;
      expect(child.stderr()).toBe(`crashed on a query ${run}\n`);
    }
  });

  it("reports the exit of a process whose grandchild holds its pipes open, within the bound", async () => {
    const child = node(`
      const { spawn } = require("node:child_process");
      spawn(process.execPath, ["-e", "setTimeout(() => {}, 5000)"], { stdio: ["ignore", "inherit", "inherit"] });
      process.exit(0);
    `);
    const started = Date.now();
    const exit = await child.exited;
    expect(exit.code).toBe(0);
    // Bounded at 200 ms after the exit, not the grandchild's 5 s.
    expect(Date.now() - started).toBeLessThan(4000);
    await child.stop(0);
  });
});
