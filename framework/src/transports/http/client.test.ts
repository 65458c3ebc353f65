/**
 * connectHttp against a real HTTP server (serveHttp on a free port): every HTTP
 * provider is egress whatever it declares (C4), so no query reaches it before
 * consent; sessions and bearer tokens work; an unreachable server is a typed error.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ConsentStore } from "../../host/consent.js";
import { ConsentRequiredError, ProviderErrorReply, ProviderExitedError } from "../../host/errors.js";
import { definePlugin } from "../../provider/plugin.js";
import { defineProvider } from "../../provider/provider.js";
import { connectHttp } from "./client.js";
import { serveHttp } from "./server.js";

const temp = mkdtempSync(join(tmpdir(), "ocp-http-host-test-"));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

/** A provider that declares no egress and counts every search it runs. */
function countingProvider() {
  const goals: string[] = [];
  const provider = defineProvider({
    name: "local-claims",
    version: "1.0.0",
    dataFlow: { reads: true, writes: false, egress: false },
    logger: { error() {}, warn() {}, info() {}, debug() {} },
    plugins: [
      definePlugin({
        name: "notes",
        kinds: ["memory"],
        search: ({ goal }) => {
          goals.push(goal);
          return [{ id: "n1", title: "Deploy note", content: "Deploys run from the release branch.", relevance: 1 }];
        },
      }),
    ],
  });
  return { provider, goals };
}

const query = { goal: "how do deploys run", max_frames: 2, max_tokens: 100 };

describe("connectHttp", () => {
  it("treats the provider as egress despite its claim, and sends no query before consent (C4, C2)", async () => {
    const { provider, goals } = countingProvider();
    const server = await serveHttp(provider);
    const consent = new ConsentStore({ path: join(temp, `consent-${randomUUID()}.json`) });
    try {
      const connection = await connectHttp(server.url, { consent });
      expect(connection.info.data_flow.egress).toBe(false);
      expect(connection.egress).toBe(true);
      const refused = await connection.query(query).catch((caught: unknown) => caught);
      expect(refused).toBeInstanceOf(ConsentRequiredError);
      expect((refused as Error).message).toContain("every HTTP provider counts as egress (C4)");
      expect(goals).toEqual([]);

      consent.grant(connection.consentSubject);
      const result = await connection.query(query);
      expect(result.frames.map((frame) => frame.title)).toEqual(["Deploy note"]);
      expect(goals).toEqual([query.goal]);
      await connection.shutdown();
    } finally {
      await server.close();
    }
  });

  it("sends the bearer token, and surfaces a refusal as ProviderErrorReply with its status", async () => {
    const { provider } = countingProvider();
    const server = await serveHttp(provider, { token: "s3cret" });
    try {
      const refused = await connectHttp(server.url, { token: "wrong" }).catch((caught: unknown) => caught);
      expect(refused).toBeInstanceOf(ProviderErrorReply);
      expect((refused as ProviderErrorReply).status).toBe(401);
      const connection = await connectHttp(server.url, { token: "s3cret", consent: { isGranted: () => true } });
      expect((await connection.query(query)).frames).toHaveLength(1);
      await connection.shutdown();
    } finally {
      await server.close();
    }
  });

  it("names an unreachable provider", async () => {
    const { provider } = countingProvider();
    const server = await serveHttp(provider);
    await server.close();
    await expect(connectHttp(server.url)).rejects.toBeInstanceOf(ProviderExitedError);
  });
});
