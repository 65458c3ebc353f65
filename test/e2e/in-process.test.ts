/**
 * A provider used in-process by a plain script: once its queries are answered, nothing
 * the framework holds (the shared plugin-timeout timer above all) may keep the
 * process alive until the timeout would have fired.
 */
import { afterEach, describe, expect, it } from "vitest";
import { trackChildren } from "../test-support/child.js";

const children = trackChildren();
afterEach(() => children.killAll());

const SCRIPT = `
import { definePlugin, defineProvider } from "./framework/dist/index.js";
const slowish = definePlugin({
  name: "slowish",
  kinds: ["doc"],
  search: () => new Promise((done) => setTimeout(() => done([{ content: "hello", relevance: 1 }]), 20)),
});
const provider = defineProvider({
  name: "script",
  version: "1.0.0",
  dataFlow: { reads: true, writes: false, egress: false },
  plugins: [slowish],
  pluginTimeoutMs: 60000,
});
const result = await provider.query({ goal: "hello", max_frames: 5, max_tokens: 100 });
process.stdout.write(JSON.stringify(result.frames.map((frame) => frame.content)) + "\\n");
`;

describe("a provider in a script", () => {
  it("lets the process exit on its own once the queries are answered", async () => {
    const started = Date.now();
    const child = children.spawn(["--input-type=module", "-e", SCRIPT]);
    expect(await child.nextLine(20_000)).toBe('["hello"]');
    const { code } = await child.exited;
    expect(code, child.stderr()).toBe(0);
    // The plugin timeout is a minute: exiting long before it means no timer held the loop.
    expect(Date.now() - started).toBeLessThan(15_000);
  });
});
