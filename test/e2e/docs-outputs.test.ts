/**
 * Every command output the docs show is the command's real output. A fenced block whose
 * first line is `$ <command>` is run as a person types it (`sh -c` in the repository's
 * root, no terminal) and its other lines are compared with what the command prints:
 * stdout when it exits 0, stderr when it does not (a usage error). A line `…` stands for
 * lines the docs leave out; runs of spaces count as one (column widths follow the
 * numbers), and only timings may differ: a number before `ms`, and every number of the
 * per-query timing table of `ocp bench`.
 *
 * The docs example answers from this repository's own docs, so an edit anywhere in
 * README.md or docs/ can change what it prints: this test then fails, naming the block.
 * `npm run docs:outputs` (this file with `OCP_UPDATE_DOCS=1`) writes the real outputs
 * into the blocks (keeping how many lines each shows before and after its `…`, and their
 * timings) until they stop changing, since the blocks are part of what the example searches.
 */
import { execFile } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { REPO } from "../test-support/child.js";

const exec = promisify(execFile);
/** The files whose shown outputs are kept true. */
const FILES = ["README.md", "docs/cli.md"];
/** Stands for lines of the output a block leaves out. */
const ELIDED = "…";

/** A shown output: where its block is, the command, and the lines shown after it. */
interface Shown {
  file: string;
  /** 0-based index of the `$ command` line, and one past the block's last line. */
  from: number;
  to: number;
  indent: string;
  command: string;
  lines: string[];
}

/** The blocks of a Markdown file that show a command's output. */
function shownOutputs(file: string, markdown: string): Shown[] {
  const lines = markdown.split("\n");
  const shown: Shown[] = [];
  for (let at = 0; at < lines.length; at++) {
    const fence = /^(\s*)```\s*$/.exec(lines[at] as string);
    if (fence === null) continue;
    const indent = fence[1] as string;
    const end = lines.findIndex((line, i) => i > at && line === `${indent}\`\`\``);
    if (end === -1) break;
    const body = lines.slice(at + 1, end).map((line) => (line.startsWith(indent) ? line.slice(indent.length) : line));
    if (body[0]?.startsWith("$ ")) {
      shown.push({ file, from: at + 1, to: end, indent, command: body[0].slice(2), lines: body.slice(1) });
    }
    at = end;
  }
  return shown;
}

/** The output as compared: spaces collapsed, trailing ones dropped, timings made alike. */
function normalized(lines: readonly string[]): string[] {
  let timings = false;
  return lines.map((line) => {
    if (line.trim() === "") timings = false;
    let text = line.trim() === "" ? "" : line.replace(/ +/g, " ").trimEnd();
    text = text.replace(/\d+(?:\.\d+)? ms\b/g, "# ms");
    if (timings) text = text.replace(/\d+(?:\.\d+)?/g, "#");
    if (/^\s*per query, ms\b/.test(line)) timings = true;
    return text;
  });
}

/** Why the shown lines are not the output's, or undefined when they are. */
function mismatch(shown: readonly string[], output: readonly string[]): string | undefined {
  const want = normalized(shown);
  const got = normalized(output);
  const parts: string[][] = [[]];
  for (const line of want) {
    if (line === ELIDED) parts.push([]);
    else (parts.at(-1) as string[]).push(line);
  }
  const first = parts[0] as string[];
  const last = parts.at(-1) as string[];
  const startsAt = (part: readonly string[], at: number) => part.every((line, i) => got[at + i] === line);
  if (parts.length === 1) return startsAt(first, 0) && first.length === got.length ? undefined : "differs";
  if (!startsAt(first, 0)) return `its first ${first.length} line(s) differ`;
  let at = first.length;
  for (const part of parts.slice(1, -1)) {
    let found = at;
    while (found <= got.length - part.length && !startsAt(part, found)) found++;
    if (found > got.length - part.length) return `not in the output, in order: ${part[0]}`;
    at = found + part.length;
  }
  const tail = got.length - last.length;
  return tail >= at && startsAt(last, tail) ? undefined : `its last ${last.length} line(s) differ`;
}

/** The command's output lines (stdout, or stderr when it fails), as it prints them without a terminal. */
async function run(command: string): Promise<string[]> {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !["FORCE_COLOR", "NO_COLOR", "OCP_LOG"].includes(key)),
  );
  const text = await exec("sh", ["-c", command], { cwd: REPO, env, maxBuffer: 16 << 20 }).then(
    ({ stdout }) => stdout,
    (error: { stderr?: string; code?: unknown }) => {
      if (typeof error.code !== "number") throw error;
      return error.stderr ?? "";
    },
  );
  return text.replace(/\n$/, "").split("\n");
}

/**
 * The block's lines as `output` would show them — all of it, or as many before and after
 * its `…` as now — with the block's old timings kept: written anew, they would change the
 * docs the example searches, and with them the counts other blocks show.
 */
function rewritten(shown: Shown, output: readonly string[]): string[] {
  const cut = shown.lines.indexOf(ELIDED);
  if (cut !== -1 && shown.lines.lastIndexOf(ELIDED) !== cut)
    throw new Error(`${shown.file}: more than one ${ELIDED} in a block`);
  const after = shown.lines.length - cut - 1;
  const lines = cut === -1 ? [...output] : [...output.slice(0, cut), ELIDED, ...output.slice(output.length - after)];
  const was = normalized(shown.lines);
  const now = normalized(lines);
  return lines.map((line, at) => {
    const old = shown.lines[at];
    if (old === undefined) return line;
    if (was[at] === now[at]) return old;
    const times = [...old.matchAll(/\d+(?:\.\d+)? ms\b/g)].map((match) => match[0]);
    return line.replace(/ *\d+(?:\.\d+)? ms\b/g, (match) => {
      const time = times.shift();
      return time === undefined ? match : time.padStart(match.length);
    });
  });
}

/** Writes the real outputs into every block, again until the docs stop changing. */
async function updateDocs(): Promise<void> {
  for (let round = 0; round < 4; round++) {
    let changed = false;
    for (const file of FILES) {
      const path = join(REPO, file);
      const lines = readFileSync(path, "utf8").split("\n");
      // From the last block up, so the indexes of those above stay right.
      for (const shown of shownOutputs(file, lines.join("\n")).reverse()) {
        const output = await run(shown.command);
        if (mismatch(shown.lines, output) === undefined) continue; // timings alone are not rewritten
        changed = true;
        const body = rewritten(shown, output).map((line) => (line === "" ? "" : `${shown.indent}${line.trimEnd()}`));
        lines.splice(shown.from + 1, shown.to - shown.from - 1, ...body);
      }
      writeFileSync(path, lines.join("\n"));
    }
    if (!changed) return;
  }
  throw new Error("the shown outputs did not settle after 4 rounds");
}

/** Each file's blocks (an update rewrites their lines, never how many blocks there are). */
const shownIn = (file: string) => shownOutputs(file, readFileSync(join(REPO, file), "utf8"));
const shown = FILES.flatMap((file) => shownIn(file).map((block, index) => ({ ...block, index })));

describe("the outputs the docs show", { timeout: 600_000 }, () => {
  it.runIf(process.env.OCP_UPDATE_DOCS === "1")("are written from real runs (OCP_UPDATE_DOCS=1)", updateDocs);

  it("include `ocp query`'s answer to the README's question and `ocp bench`'s report", () => {
    const commands = shown.map((block) => block.command);
    expect(commands).toContain('npx ocp query examples/docs-provider.ts "how are token costs counted?"');
    expect(commands.some((command) => command.startsWith("npx ocp bench "))).toBe(true);
  });

  for (const block of shown) {
    it(`${block.file}:${block.from + 1} ${block.command}`, async () => {
      // Read again: an update above may have rewritten the block.
      const now = shownIn(block.file)[block.index] as Shown;
      const output = await run(block.command);
      const why = mismatch(now.lines, output);
      const fix = "npm run docs:outputs writes the real outputs";
      expect(
        why,
        `${block.file}:${now.from + 1} \`${block.command}\` ${why} (${fix}); it prints:\n${output.join("\n")}`,
      ).toBe(undefined);
    });
  }
});
