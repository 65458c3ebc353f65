/** The README's code is real code: its provider is examples/hello-provider.ts, which typechecks and runs. */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import hello from "../examples/hello-provider.js";

const read = (path: string) => readFileSync(new URL(`../${path}`, import.meta.url), "utf8");

describe("README", () => {
  it("shows examples/hello-provider.ts verbatim", () => {
    const block = /## A provider in \d+ lines\n\n```ts\n([\s\S]*?)```/.exec(read("README.md"))?.[1];
    expect(block).toBe(read("examples/hello-provider.ts"));
  });

  it("names a provider that answers the question it is asked", async () => {
    const result = await hello.query({ goal: "how do retries back off?", max_tokens: 100, max_frames: 1 });
    expect(result.frames[0]).toMatchObject({ title: "Team note 2", citation_label: "Team note 2" });
  });

  it("says that the test command is npm test, which .ci/run runs after npm ci", () => {
    expect(read("README.md")).toContain("npm test ");
    expect(read(".ci/run")).toMatch(/npm ci[\s\S]*npm test/);
  });
});
