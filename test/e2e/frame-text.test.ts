/**
 * Hostile file names as a host meets them: real files named with a newline, a terminal
 * escape and bidi overrides, found by the real `rg` behind the real `ocp-ripgrep` bin.
 * Their titles and citation labels reach the host as one plain line, cleaned by the
 * framework where frames are built (not by the plugin).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { exitWithin, trackChildren } from "../test-support/child.js";
import { handshake, nextEnvelope } from "../test-support/envelopes.js";

const BIN = fileURLToPath(new URL("../../plugins/ripgrep/bin/ocp-ripgrep.js", import.meta.url));
const children = trackChildren();
afterEach(children.killAll);

const root = mkdtempSync(join(tmpdir(), "ocp-frame-text-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const NAMES = [
  "line\nbreak.ts",
  "\u001b[2Jclear.ts",
  "invoice\u202egnp.ts",
  "iso\u2066late\u2069d.ts",
  "tab\tand\u0007bell.ts",
  "c1\u009b31m.ts",
];
for (const name of NAMES) writeFileSync(join(root, name), "export const zanzibarMarker = 1;\n");

// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;

describe("titles and citation labels of files with hostile names (real rg, real child process)", () => {
  it("arrive as one plain line, naming the file readably", async () => {
    const child = children.spawn([BIN, "--root", root]);
    expect((await handshake(child)).type).toBe("handshake_ack");
    child.send({
      type: "query",
      query: {
        goal: "find zanzibarMarker",
        query_text: "zanzibarMarker",
        kinds: [],
        anchors: [],
        max_frames: 20,
        max_tokens: 4000,
      },
    });
    const reply = await nextEnvelope(child, 20_000);
    expect(reply.type).toBe("frames");
    const frames = reply.result.frames as { title: string; citation_label: string }[];
    expect(frames).toHaveLength(NAMES.length);
    for (const frame of frames) {
      expect(frame.title, JSON.stringify(frame.title)).not.toMatch(UNSAFE);
      expect(frame.citation_label, JSON.stringify(frame.citation_label)).not.toMatch(UNSAFE);
    }
    const labels = frames.map((frame) => frame.citation_label).sort();
    expect(labels).toEqual(
      ["line break.ts", "[2Jclear.ts", "invoice gnp.ts", "iso late d.ts", "tab and bell.ts", "c1 31m.ts"]
        .map((name) => `${name} L1`)
        .sort(),
    );
    child.send({ type: "shutdown" });
    expect((await exitWithin(child, 5000)).code).toBe(0);
  });
});
