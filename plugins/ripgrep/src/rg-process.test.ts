/**
 * The rg binary lookup, the rg command lines and the rg process lifecycle: real
 * binaries and real processes throughout.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { DEFAULTS } from "./options.js";
import { fileRuleArgs, searchArgs } from "./rg-args.js";
import { findRipgrep, locateRipgrep } from "./rg-binary.js";
import { runRipgrep } from "./rg-run.js";
import { queryTerms, rustPattern } from "./terms.js";

const scratch = mkdtempSync(join(tmpdir(), "ocp-rg-proc-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Live (non-zombie) `rg` children of this process, from /proc. */
function rgChildren(): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const [, comm, state, ppid] = /^\d+ \((.*)\) (\S) (\d+)/.exec(stat) ?? [];
      if (comm === "rg" && state !== "Z" && Number(ppid) === process.pid) found.push(Number(entry));
    } catch {
      // the process went away while we looked
    }
  }
  return found;
}

async function noRgChildrenWithin(ms: number): Promise<number[]> {
  const deadline = Date.now() + ms;
  let left = rgChildren();
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    left = rgChildren();
  }
  return left;
}

/** A FIFO nobody writes to: rg blocks reading it until killed. */
function stuckInput(): string {
  const fifo = join(scratch, `fifo-${Math.random().toString(36).slice(2)}`);
  execFileSync("mkfifo", [fifo]);
  return fifo;
}

describe("finding ripgrep", () => {
  it("finds the packaged rg 15 binary", async () => {
    const rg = await findRipgrep();
    expect(rg.source).toBe("@vscode/ripgrep");
    expect(execFileSync(rg.path, ["--version"], { encoding: "utf8" })).toMatch(/^ripgrep 15\./);
  });

  it("falls back to rg on PATH, and names both places when neither has one", async () => {
    const bin = join(scratch, "bin");
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, "rg"), "#!/bin/sh\necho fake\n");
    chmodSync(join(bin, "rg"), 0o755);
    const missing = async () => {
      throw new Error("Could not find @vscode/ripgrep-linux-x64");
    };
    expect(await locateRipgrep({ packaged: missing, pathEnv: `/nonexistent:${bin}` })).toEqual({
      path: join(bin, "rg"),
      source: "PATH",
    });
    const error = await locateRipgrep({ packaged: missing, pathEnv: "/nonexistent" }).catch((e: Error) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/@vscode\/ripgrep/);
    expect((error as Error).message).toMatch(/'rg' on PATH/);
    expect((error as Error).message).toMatch(/Could not find @vscode\/ripgrep-linux-x64/);
    await expect(locateRipgrep({ rgPath: join(bin, "nope"), packaged: missing, pathEnv: "" })).rejects.toThrow(
      /not an executable/,
    );
  });
});

describe("rg command lines", () => {
  const rules = { ...DEFAULTS };
  const fixedPrefix = searchArgs([], rules).slice(0, -2);

  it("passes query text only as the values of -e, with the path after --", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (text) => {
        const terms = queryTerms(text);
        const args = searchArgs(terms, rules);
        expect(args.slice(0, fixedPrefix.length)).toEqual(fixedPrefix);
        const patterns = args.slice(fixedPrefix.length, -2);
        expect(patterns).toHaveLength(terms.length * 2);
        terms.forEach((term, i) => {
          expect(patterns[2 * i]).toBe("-e");
          expect(patterns[2 * i + 1]).toBe(rustPattern(term));
        });
        expect(args.slice(-2)).toEqual(["--", "."]);
      }),
    );
  });

  it("never follows symlinks, ignores rg config files, and skips hidden files unless asked", () => {
    expect(fixedPrefix).toEqual(expect.arrayContaining(["--json", "--no-config", "--no-follow", "--encoding=none"]));
    expect(fileRuleArgs({ hidden: false, maxFileSizeBytes: 10 })).not.toContain("--hidden");
    expect(fileRuleArgs({ hidden: true, maxFileSizeBytes: 10 })).toEqual(
      expect.arrayContaining(["--hidden", "--glob=!.git"]),
    );
  });
});

describe("runRipgrep", () => {
  it("kills rg when the signal aborts, and rejects with the signal's reason once rg has exited", async () => {
    const rg = (await findRipgrep()).path;
    const controller = new AbortController();
    const running = runRipgrep({
      rgPath: rg,
      args: ["-e", "x", "--", stuckInput()],
      cwd: scratch,
      signal: controller.signal,
      onStdout: () => undefined,
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(rgChildren()).toHaveLength(1);
    controller.abort(new Error("host went away"));
    await expect(running).rejects.toThrow("host went away");
    // Rejected only once rg is gone: a caller that frees a search slot then never has one too many.
    expect(rgChildren()).toEqual([]);
  });

  it("kills rg at its timeout and resolves with what it read", async () => {
    const rg = (await findRipgrep()).path;
    const result = await runRipgrep({
      rgPath: rg,
      args: ["-e", "x", "--", stuckInput()],
      cwd: scratch,
      timeoutMs: 150,
      onStdout: () => undefined,
    });
    expect(result).toMatchObject({ ended: "timeout", exitCode: null });
    expect(await noRgChildrenWithin(1000)).toEqual([]);
  });

  it("stops rg when the reader has enough", async () => {
    const rg = (await findRipgrep()).path;
    const dir = join(scratch, "many");
    mkdirSync(dir, { recursive: true });
    for (let i = 0; i < 200; i++) writeFileSync(join(dir, `f${i}.txt`), "needle\n".repeat(50));
    let chunks = 0;
    const result = await runRipgrep({
      rgPath: rg,
      args: ["--json", "-e", "needle", "--", "."],
      cwd: dir,
      onStdout: () => {
        chunks++;
        return false;
      },
    });
    expect(result.ended).toBe("stopped");
    expect(chunks).toBe(1);
    expect(await noRgChildrenWithin(1000)).toEqual([]);
  });

  it("rejects with a clear error when the binary cannot be started", async () => {
    await expect(
      runRipgrep({ rgPath: join(scratch, "no-such-rg"), args: [], cwd: scratch, onStdout: () => undefined }),
    ).rejects.toThrow(/could not run ripgrep at .*no-such-rg.*ENOENT/);
  });
});
