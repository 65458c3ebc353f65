/**
 * The host client asks for a tokenizer at the handshake (the tokenizer extension): a
 * real provider process (`ocp serve`) answers in it, and one that does not know the
 * extension, or offers none of the host's, fails the connection before any query.
 */
import { fileURLToPath } from "node:url";
import { createTokenCounter } from "ocp-provider";
import { connectStdio, type ProviderConnection, TokenizerRefusedError } from "ocp-provider/host";
import { installedTokenizers } from "ocp-provider/tokens";
import { afterEach, describe, expect, it } from "vitest";

const REPO = fileURLToPath(new URL("../../", import.meta.url));
const OCP_BIN = fileURLToPath(new URL("../../framework/bin/ocp.js", import.meta.url));
const ECHO = "test/fixtures/echo-provider.mjs";
const MISBEHAVING = "framework/src/conformance/misbehaving-provider.ts";

const open: ProviderConnection[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((connection) => connection.shutdown()));
});

const echo = async (tokenizers?: readonly string[]) => {
  const connection = await connectStdio(process.execPath, [OCP_BIN, "serve", ECHO], {
    cwd: REPO,
    report: () => {},
    ...(tokenizers === undefined ? {} : { tokenizers }),
  });
  open.push(connection);
  return connection;
};

describe("a host that budgets in its own model's tokenizer", () => {
  // Loading a vocabulary takes seconds, in the provider and here.
  it("gets a session counted in it: every cost is the Llama 3 count of the content", { timeout: 120_000 }, async () => {
    const connection = await echo(["llama", "o200k_base"]);
    expect(connection.tokenizer).toBe("llama3");
    expect(connection.tokenizers).toEqual(installedTokenizers());
    const result = await connection.query(
      { goal: "tokenizers", max_frames: 3, max_tokens: 3000 },
      { timeoutMs: 100_000 },
    );
    const llama = createTokenCounter({ tokenizer: "llama3", cacheSize: 0 });
    expect(result.frames.length).toBe(1);
    for (const frame of result.frames) expect(frame.token_cost).toBe(llama.count(frame.content));
    // The echo provider's own default is bytes / 4: the session is not counted in it.
    expect(result.frames[0]?.token_cost).not.toBe(
      createTokenCounter({ tokenizer: "canonical" }).count(result.frames[0]?.content ?? ""),
    );
  });

  it("without asking, gets the provider's default and no offer", async () => {
    const connection = await echo();
    expect(connection.tokenizer).toBeUndefined();
    const result = await connection.query({ goal: "tokenizers", max_frames: 3, max_tokens: 3000 });
    expect(result.frames[0]?.token_cost).toBe(
      createTokenCounter({ tokenizer: "canonical" }).count(result.frames[0]?.content ?? ""),
    );
  });

  it("fails to connect when the provider offers none of its tokenizers, naming what it offers", async () => {
    const error = await echo(["p50k_base"]).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TokenizerRefusedError);
    expect((error as TokenizerRefusedError).offered).toEqual(installedTokenizers());
    expect((error as Error).message).toContain("p50k_base");
  });

  it("fails to connect when the provider does not know the extension", async () => {
    const error = await connectStdio(process.execPath, ["--import", "tsx", MISBEHAVING, "--misbehave", "clean"], {
      cwd: REPO,
      report: () => {},
      tokenizers: ["gemma3"],
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TokenizerRefusedError);
    expect((error as TokenizerRefusedError).offered).toBeUndefined();
  });
});
