/**
 * What the facts README promises of `erase` — the fact is gone everywhere — held over MCP:
 * `ocp-facts serve --mcp --http` serves two real SDK clients, the real `ocp-facts` command
 * asserts, corrects and erases facts in between, and neither a new session nor the one
 * that was given the link lists or reads the erased text. A corrected fact reads as corrected.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Child, REPO, spawnNode } from "../test-support/child.js";
import { listeningUrl } from "../test-support/listening.js";
import { callTool, connectHttp, linksOf, textOf } from "../test-support/mcp.js";

const FACTS = join(REPO, "plugins", "facts", "bin", "ocp-facts.js");
const dir = mkdtempSync(join(tmpdir(), "ocp-mcp-erase-"));
const db = join(dir, "company.db");
// Asynchronous: a blocked test process would let the server's keep-alive timeout close the
// clients' idle connections under them.
const facts = (...args: string[]) =>
  new Promise<string>((resolve, reject) =>
    execFile(process.execPath, [FACTS, ...args, "--db", db], (error, stdout) =>
      error === null ? resolve(stdout) : reject(error),
    ),
  );

let child: Child;
let url: string;
const clients: Client[] = [];
const connect = async () => {
  const client = await connectHttp(url);
  clients.push(client);
  return client;
};

beforeAll(async () => {
  await facts("assert", "--subject", "alice", "--predicate", "lives_in", "--statement", "alice lives in Paris.");
  await facts("assert", "--subject", "alice", "--predicate", "works_at", "--statement", "alice works at Acme.");
  child = spawnNode([FACTS, "serve", "--db", db, "--mcp", "--http", "127.0.0.1:0"]);
  url = await listeningUrl(child);
});
afterAll(async () => {
  await Promise.all(clients.map((client) => client.close().catch(() => {})));
  child?.process.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

const uris = async (client: Client) => (await client.listResources()).resources.map((resource) => resource.uri);
const readText = async (client: Client, uri: string) =>
  (
    (await client.readResource({ uri })).contents[0] as {
      text: string;
    }
  ).text;

// The tests run in order, on one server: the first session is given the links, then facts change.
describe("ocp-facts serve --mcp after erase and correct", () => {
  let first: Client;

  it("links the facts it serves, and reads them back", async () => {
    first = await connect();
    const result = await callTool(first, { goal: "where does alice live and work" });
    expect(textOf(result)).toContain("alice lives in Paris.");
    expect(linksOf(result).map((link) => link.uri)).toEqual(
      expect.arrayContaining(["fact://company/1", "fact://company/2"]),
    );
    expect(await readText(first, "fact://company/1")).toBe("alice lives in Paris.");
    expect(await uris(first)).toEqual(expect.arrayContaining(["fact://company/1", "fact://company/2"]));
    await facts("erase", "--id", "1", "--reason", "asked to be forgotten");
    await facts("correct", "--id", "2", "--statement", "alice works at Globex.");
  });

  it("lists and reads nothing of it in a new session", async () => {
    const second = await connect();
    expect(await uris(second)).toEqual([]);
    const refused = second.readResource({ uri: "fact://company/1" });
    await expect(refused).rejects.toThrow(/the provider no longer serves it/);
    await expect(refused).rejects.toMatchObject({ code: -32002, data: { code: "OCP_ERR_MCP_RESOURCE" } });
    // A fresh question does not bring the erased fact back either.
    const again = await callTool(second, { goal: "where does alice live and work" });
    expect(textOf(again)).not.toContain("Paris");
    expect(linksOf(again).map((link) => link.uri)).toEqual(["fact://company/2"]);
  });

  it("asks the provider again for the session that was given the link: erased is gone, corrected reads corrected", async () => {
    expect(await uris(first)).not.toContain("fact://company/1");
    await expect(first.readResource({ uri: "fact://company/1" })).rejects.toThrow(/OCP_ERR_MCP_RESOURCE/);
    expect(await readText(first, "fact://company/2")).toBe("alice works at Globex.");
    expect(child.stderr()).not.toMatch(/Paris/);
  });
});
