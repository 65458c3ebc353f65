/**
 * connectStdio against real child processes: the misbehaving provider (from
 * source, through tsx) in its clean and lying modes, and the things a host must
 * survive — version mismatch, hangs, crashes, stdout noise, orphaned grandchildren,
 * and an egress provider that must never see a query before consent.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { ProviderConnection } from "../../host/connection.js";
import { ConsentStore } from "../../host/consent.js";
import {
  BudgetViolationError,
  ConsentRequiredError,
  ProviderExitedError,
  ProviderTimeoutError,
  VersionMismatchError,
} from "../../host/errors.js";
import { connectStdio, type StdioConnectOptions } from "./client.js";

const ROOT = fileURLToPath(new URL("../../../../", import.meta.url));
const FIXTURE = fileURLToPath(new URL("../../conformance/misbehaving-provider.ts", import.meta.url));
const temp = mkdtempSync(join(tmpdir(), "ocp-host-test-"));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

const open: ProviderConnection[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((connection) => connection.shutdown()));
});

/** Connects to the fixture in `mode`, with a unique marker argument so its processes can be found in /proc. */
async function fixture(mode: string, extra: string[] = [], options: StdioConnectOptions = {}) {
  const marker = `ocp-test-${randomUUID()}`;
  const args = ["--import", "tsx", FIXTURE, "--misbehave", mode, ...extra, `--tokenizer=o200k_base`];
  // The marker rides in the environment, which /proc shows for every process that inherits it.
  const connection = await connectStdio(process.execPath, args, {
    cwd: ROOT,
    env: { OCP_TEST_MARKER: marker },
    report: () => {},
    ...options,
  });
  open.push(connection);
  return { connection, marker };
}

/** Pids of live processes whose environment carries `marker`. */
function processesWith(marker: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/environ`, "latin1").includes(`OCP_TEST_MARKER=${marker}`)) {
        const stat = readFileSync(`/proc/${entry}/stat`, "latin1");
        if (!/\) Z /.test(stat)) found.push(Number(entry)); // zombies are dead, just not reaped
      }
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found;
}

/** Waits (bounded) until `pid` no longer exists: `process.kill(pid, 0)` throws ESRCH. */
async function gone(pid: number): Promise<boolean> {
  for (let waited = 0; waited < 5000; waited += 50) {
    try {
      process.kill(pid, 0);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ESRCH") return true;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}

const query = { goal: "retry policy configuration", max_frames: 4, max_tokens: 200 };

describe("connectStdio", () => {
  it("handshakes, queries with audited results, and reports the provider's identity", async () => {
    const { connection } = await fixture("clean");
    expect(connection.info.name).toBe("misbehaving");
    expect(connection.egress).toBe(false);
    const result = await connection.query(query);
    expect(result.frames.length).toBeGreaterThan(0);
    expect(result.frames.reduce((sum, frame) => sum + frame.token_cost, 0)).toBeLessThanOrEqual(200);
  });

  it("leaves no process behind: the provider and the grandchild it started are gone after shutdown", async () => {
    const { connection, marker } = await fixture("clean", ["--orphan"]);
    await connection.query(query);
    const grandchild = Number(/grandchild pid (\d+)/.exec(connection.stderr())?.[1]);
    expect(grandchild).toBeGreaterThan(0);
    expect(processesWith(marker).length).toBeGreaterThanOrEqual(2);
    await connection.shutdown();
    expect(processesWith(marker)).toEqual([]);
    // Killed, and reaped: the orphan's new parent (init) reaps it asynchronously, so allow it a moment.
    expect(await gone(grandchild)).toBe(true);
  });

  it("rejects an ack from another major family with VersionMismatchError, and stops the process", async () => {
    const marker = `ocp-test-${randomUUID()}`;
    const error = await connectStdio(process.execPath, ["--import", "tsx", FIXTURE, "--misbehave", "bad-version"], {
      cwd: ROOT,
      env: { OCP_TEST_MARKER: marker },
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(VersionMismatchError);
    expect((error as VersionMismatchError).theirs).toBe("ocp/2.0");
    expect((error as VersionMismatchError).code).toBe("OCP_ERR_VERSION_MISMATCH");
    expect(processesWith(marker)).toEqual([]);
  });

  it("times out a handshake that never comes, and kills what it spawned", async () => {
    const marker = `ocp-test-${randomUUID()}`;
    const error = await connectStdio(process.execPath, ["-e", "setInterval(() => {}, 60_000)"], {
      env: { OCP_TEST_MARKER: marker },
      handshakeTimeoutMs: 300,
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProviderTimeoutError);
    expect((error as Error).message).toBe("no reply to the handshake within 300 ms");
    expect(processesWith(marker)).toEqual([]);
  });

  it("times out a hanging query without losing the connection's place in line", async () => {
    const { connection } = await fixture("hang-on-query", [], { queryTimeoutMs: 300 });
    await expect(connection.query(query)).rejects.toBeInstanceOf(ProviderTimeoutError);
    await expect(connection.query(query, { timeoutMs: 200 })).rejects.toThrow("no reply to the query within 200 ms");
  });

  it("reports a crash as ProviderExitedError naming the exit and stderr", async () => {
    const { connection } = await fixture("crash-on-query");
    const error = await connection.query(query).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProviderExitedError);
    expect((error as Error).message).toMatch(/exited \(code 1\)/);
    expect((error as Error).message).toContain("misbehaving provider crashed on a query");
    expect(connection.closed).toBe(true);
  });

  it("drops a result over budget whole and reports it loudly (B2)", async () => {
    const reports: string[] = [];
    const { connection } = await fixture("lying-costs", [], { report: (message) => reports.push(message) });
    const error = await connection.query({ ...query, max_tokens: 20 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(BudgetViolationError);
    expect((error as BudgetViolationError).violations[0]).toMatch(/^Σ token_cost \d+ > max_tokens 20/);
    expect(reports.join("\n")).toMatch(/BUDGET VIOLATION by 'misbehaving'.*were dropped \(B2\)/);
  });

  it("ignores stdout noise instead of taking it for a reply", async () => {
    const reports: string[] = [];
    const { connection } = await fixture("stdout-noise", [], { report: (message) => reports.push(message) });
    const result = await connection.query(query);
    expect(result.frames.length).toBeGreaterThan(0);
    expect(reports.some((message) => message.includes("not an envelope"))).toBe(true);
  });
});

describe("consent for an egress provider over stdio (C1, C2)", () => {
  it("sends no query payload before consent is recorded, and stops sending once it is revoked", async () => {
    const record = join(temp, `received-${randomUUID()}.ndjson`);
    const consent = new ConsentStore({ path: join(temp, `consent-${randomUUID()}.json`) });
    const received = () =>
      readFileSync(record, "utf8")
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line).type);

    const { connection } = await fixture("clean", ["--egress", "--record", record], { consent });
    expect(connection.egress).toBe(true);
    const refused = await connection.query(query).catch((caught: unknown) => caught);
    expect(refused).toBeInstanceOf(ConsentRequiredError);
    expect((refused as Error).message).toContain("declares data_flow.egress: true");
    await connection.shutdown();
    // Everything the provider ever read: the handshake and the shutdown, never the query.
    expect(received()).toEqual(["handshake", "shutdown"]);

    consent.grant(connection.consentSubject);
    const again = await fixture("clean", ["--egress", "--record", record], { consent });
    expect((await again.connection.query(query)).frames.length).toBeGreaterThan(0);
    expect(consent.revoke(again.connection.consentSubject)).toBe(true);
    await expect(again.connection.query(query)).rejects.toBeInstanceOf(ConsentRequiredError);
    await again.connection.shutdown();
    expect(received()).toEqual(["handshake", "shutdown", "handshake", "query", "shutdown"]);
  });
});
