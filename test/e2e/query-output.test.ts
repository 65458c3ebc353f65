/**
 * What `ocp query` shows a person, from the real process: each frame's content
 * (its first lines, all with --full) under a `path:line` a terminal opens, goal
 * terms highlighted when colour is on; colour only on a terminal or with
 * FORCE_COLOR, never with NO_COLOR; --json stays pure. And the scaffolder
 * follows the same colour rule.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { OCP_BIN, REPO } from "../test-support/child.js";

const exec = promisify(execFile);
const ESC = "\u001b[";
/** An SGR escape (colour, bold, …). */
const SGR = new RegExp(`${String.fromCharCode(27)}\\[\\d+m`, "g");
const GOAL = "how are token costs counted?";

/** The environment without any colour setting of the outer run, plus `env`. */
function envWith(env: Record<string, string>): NodeJS.ProcessEnv {
  const base = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !["NO_COLOR", "FORCE_COLOR", "CI", "TERM"].includes(key)),
  );
  return { ...base, ...env };
}

async function query(args: string[], env: Record<string, string> = {}) {
  const { stdout, stderr } = await exec(
    process.execPath,
    [OCP_BIN, "query", "examples/docs-provider.ts", GOAL, "--max-tokens", "800", ...args],
    { cwd: REPO, env: envWith(env) },
  );
  return { stdout, stderr };
}

interface Frame {
  content: string;
  citation_label: string;
}

describe("ocp query shows what it found", () => {
  it("each frame's first lines under a path:line that opens the line the content starts at", async () => {
    const [{ stdout }, json] = await Promise.all([query([]), query(["--json"])]);
    expect(stdout).not.toContain(ESC); // not a terminal: no colour
    const frames = (JSON.parse(json.stdout) as { frames: Frame[] }).frames;
    expect(frames.length).toBeGreaterThan(1);
    const blocks = stdout.split(/\n(?= *\d+\. )/);
    frames.forEach((frame, index) => {
      const block = blocks[index] as string;
      const [, path, line] = /^ {4}(\S+):(\d+) {2}cite: (.+)$/m.exec(block) ?? [];
      expect(path, block).toBeDefined();
      expect(block).toContain(`cite: ${frame.citation_label}`);
      // The location is real: that file, at that line, starts with the frame's content.
      const fileLines = readFileSync(join(REPO, path as string), "utf8").split("\n");
      const contentLines = frame.content.replace(/\n$/, "").split("\n");
      expect(fileLines[Number(line) - 1]).toBe(contentLines[0]);
      const shown = block
        .split("\n")
        .filter((l) => l.startsWith("    │ "))
        .map((l) => l.slice(6));
      expect(shown).toEqual(contentLines.slice(0, 6).map((l) => (l.trimEnd() === "" ? "" : l)));
      if (contentLines.length > 6) {
        expect(block).toContain(
          `… ${contentLines.length - 6} more line${contentLines.length === 7 ? "" : "s"} (--full shows all)`,
        );
      }
    });
  });

  it("--full shows every line of the content", async () => {
    const [{ stdout }, json] = await Promise.all([
      query(["--full", "--max-frames", "1"]),
      query(["--json", "--max-frames", "1"]),
    ]);
    const frame = (JSON.parse(json.stdout) as { frames: Frame[] }).frames[0] as Frame;
    const shown = stdout
      .split("\n")
      .filter((l) => l.startsWith("    │ "))
      .map((l) => l.slice(6));
    expect(shown.join("\n")).toBe(frame.content.replace(/\n$/, ""));
    expect(stdout).not.toContain("--full shows all");
  });

  it("FORCE_COLOR colours it and highlights the goal's terms; NO_COLOR wins over it", async () => {
    const [forced, both] = await Promise.all([
      query([], { FORCE_COLOR: "1" }),
      query([], { FORCE_COLOR: "1", NO_COLOR: "1" }),
    ]);
    // "Token costs": both words of the goal marked (bold yellow), in the content, not just the title.
    expect(forced.stdout).toContain(`# ${ESC}1m${ESC}33mToken${ESC}39m${ESC}22m ${ESC}1m${ESC}33mcost`);
    expect(both.stdout).not.toContain(ESC);
    const plain = (text: string) => text.replace(SGR, "").replace(/\s+/g, " ");
    expect(plain(both.stdout)).toBe(plain(forced.stdout));
  });

  it("--json is the result and nothing else, whatever the colour settings", async () => {
    const { stdout, stderr } = await query(["--json"], { FORCE_COLOR: "1" });
    expect(stdout).not.toContain(ESC);
    expect(JSON.parse(stdout).frames.length).toBeGreaterThan(0);
    expect(stderr).toBe("");
  });
});

describe("ocp query and an untrusted frame", () => {
  it("shows escape sequences in its title and content as text, never sends them to the terminal", async () => {
    const { stdout } = await exec(process.execPath, [OCP_BIN, "query", "test/fixtures/escape-provider.ts", "x"], {
      cwd: REPO,
      env: envWith({}),
    });
    // The title was cleaned where the frame was built (controls become a space); content is shown as text.
    expect(stdout).toContain("Clear [2Jscreen");
    expect(stdout).toContain("│ \ufffd]0;retitled\ufffd the terminal");
    expect(stdout).toContain("│ \ufffd31m C1 red\ttab");
    // A bidi override or isolate would make the line read in another order than it runs.
    expect(stdout).toContain("│ if (user\ufffd \ufffd// admin\ufffd only\ufffd) run();");
    for (const control of ["\u001b", "\u0007", "\u009b", "\u202e", "\u2066", "\u2069", "\u2028"])
      expect(stdout).not.toContain(control);
  });

  it("keeps --json exact: the content as the provider sent it, in valid JSON", async () => {
    const { stdout } = await exec(
      process.execPath,
      [OCP_BIN, "query", "test/fixtures/escape-provider.ts", "x", "--json"],
      { cwd: REPO, env: envWith({}) },
    );
    const [frame] = JSON.parse(stdout).frames as Frame[];
    expect(frame?.content).toContain("if (user\u202e \u2066// admin\u2069 only\u2028) run();");
  });
});

describe("create-ocp-provider follows the same colour rule", () => {
  const dir = mkdtempSync(join(tmpdir(), "ocp-color-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const create = async (name: string, env: Record<string, string>) =>
    (
      await exec(process.execPath, [join(REPO, "generators/bin/create-ocp-provider.js"), name, "--no-install"], {
        cwd: dir,
        env: envWith(env),
      })
    ).stdout;

  it("CI without a terminal: no colour; FORCE_COLOR: colour; NO_COLOR: none", async () => {
    const [ci, forced, off] = await Promise.all([
      create("a", { CI: "true" }),
      create("b", { FORCE_COLOR: "1" }),
      create("c", { FORCE_COLOR: "1", NO_COLOR: "1" }),
    ]);
    expect(ci).toContain("Created a");
    expect(ci).not.toContain(ESC);
    expect(forced).toContain(`${ESC}32m✓`);
    expect(off).not.toContain(ESC);
  });
});
