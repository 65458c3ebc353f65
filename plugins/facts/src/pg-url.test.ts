/**
 * The egress judgement of a PostgreSQL URL against where the driver really goes.
 * Listeners on 127.0.0.1, ::1 and a Unix socket stand for "this machine"; every other
 * host of these URLs is a `.invalid` name, which no resolver knows. For each URL (and
 * PGHOST), `pg` itself connects: the store must be judged local exactly when that
 * connection arrives at one of the listeners.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FactError } from "./errors.js";
import { isLocalPgHost, pgEndpoint, pgIsLocal, pgLocation } from "./pg-url.js";
import { factsDataFlow } from "./plugin.js";

let port = 0;
let socketDir = "";
const servers: Server[] = [];
let arrivals = 0;

const listen = (server: Server, ...at: unknown[]) =>
  new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    (server.listen as (...args: unknown[]) => void)(...at, () => resolve());
  });

function arrivalCounter(): Server {
  const server = createServer((socket) => {
    arrivals++;
    socket.destroy(); // the driver then fails: nothing here speaks PostgreSQL
  });
  servers.push(server);
  return server;
}

beforeAll(async () => {
  const first = arrivalCounter();
  await listen(first, 0, "127.0.0.1");
  port = (first.address() as { port: number }).port;
  await listen(arrivalCounter(), port, "::1");
  socketDir = mkdtempSync(join(tmpdir(), "ocp-facts-pg-socket-"));
  await listen(arrivalCounter(), join(socketDir, `.s.PGSQL.${port}`));
});

afterAll(async () => {
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  rmSync(socketDir, { recursive: true, force: true });
});

/** Runs `fn` with PGHOST set (or unset), as the driver reads it. */
async function withPgHost<T>(value: string | undefined, fn: () => Promise<T>): Promise<T> {
  const saved = process.env.PGHOST;
  if (value === undefined) delete process.env.PGHOST;
  else process.env.PGHOST = value;
  try {
    return await fn();
  } finally {
    if (saved === undefined) delete process.env.PGHOST;
    else process.env.PGHOST = saved;
  }
}

/** Whether `pg`, given `url`, reaches this machine: one of the listeners counts the connection. */
async function driverReachesThisMachine(url: string): Promise<boolean> {
  const before = arrivals;
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  client.on("error", () => {});
  await client.connect().then(
    () => client.end(),
    () => {},
  );
  return arrivals > before;
}

/** What the store options are judged: the plugin's declared data flow, and the helper. */
function judgedLocal(url: string): boolean {
  const local = pgIsLocal(url);
  expect(factsDataFlow({ pg: url }).egress).toBe(!local);
  return local;
}

describe("pgIsLocal judges the host the driver connects to", () => {
  it.each([
    // The bypasses: an empty ?host= is ignored by the driver, and the last ?host= wins.
    ["postgres://u@db.invalid:PORT/facts?host=", undefined, false],
    ["postgres://u@localhost:PORT/facts?host=localhost&host=db.invalid", undefined, false],
    ["postgres://u@db.invalid:PORT/facts?host=db.invalid&host=localhost", undefined, true],
    ["postgres://u@127.0.0.1:PORT/facts", undefined, true],
    ["postgres://u@[::1]:PORT/facts", undefined, true],
    ["postgres://u@localhost,db.invalid:PORT/facts", undefined, false],
    // No host in the URL: PGHOST, else the driver's default, localhost (never a default socket).
    ["postgres:///facts?port=PORT", undefined, true],
    ["postgres:///facts?port=PORT", "db.invalid", false],
    ["postgres:///facts?port=PORT&host=", "db.invalid", false],
    ["postgres:///facts?port=PORT", "SOCKET", true],
    ["postgres://u@db.invalid/facts?port=PORT&host=SOCKET", undefined, true],
  ])("%s with PGHOST=%s → local %s", async (template, pgHost, local) => {
    const fill = (text: string) => text.replaceAll("PORT", String(port)).replaceAll("SOCKET", socketDir);
    const url = fill(template);
    await withPgHost(pgHost === undefined ? undefined : fill(pgHost), async () => {
      expect(judgedLocal(url)).toBe(local);
      expect(await driverReachesThisMachine(url)).toBe(local);
    });
  });

  it("agrees with the driver on any mix of URL host, repeated or empty ?host= and PGHOST", async () => {
    const names = ["localhost", "127.0.0.1", "::1", "db.invalid", "other.invalid", "localhost,db.invalid", ""];
    const hostArb = fc.constantFrom(...names, "SOCKET");
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...names),
        fc.array(hostArb, { maxLength: 3 }),
        fc.option(hostArb, { nil: undefined }),
        async (authority, hostParams, pgHost) => {
          const fill = (text: string) => (text === "SOCKET" ? socketDir : text);
          const inUrl = authority.includes(":") && !authority.includes(",") ? `[${authority}]` : authority;
          const query = [`port=${port}`, ...hostParams.map((host) => `host=${encodeURIComponent(fill(host))}`)];
          const url = `postgres://${inUrl}/facts?${query.join("&")}`;
          await withPgHost(pgHost === undefined ? undefined : fill(pgHost), async () => {
            expect(judgedLocal(url), url).toBe(await driverReachesThisMachine(url));
          });
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe("isLocalPgHost", () => {
  it.each([
    ["localhost", true],
    ["LOCALHOST", true],
    ["127.0.0.1", true],
    ["127.10.0.1", true],
    ["::1", true],
    ["0:0:0:0:0:0:0:1", true],
    ["::ffff:127.0.0.1", true],
    ["/var/run/postgresql", true],
    ["127.1", false], // some resolvers read it as 127.0.0.1; counted off the machine, the cautious answer
    ["localhost.", false],
    ["[::1]", false], // brackets belong to a URL's authority; as a host name it resolves nowhere
    ["::ffff:10.0.0.1", false],
    ["10.0.0.5", false],
    ["db.internal", false],
    ["", false],
  ])("%s → %s", (host, local) => {
    expect(isLocalPgHost(host)).toBe(local);
  });
});

describe("pgEndpoint and pgLocation", () => {
  it("name the host, port and database the driver uses, never the password", () => {
    const endpoint = pgEndpoint({ connectionString: "postgres://u:secret@db.invalid:6543/facts?host=10.0.0.5" });
    expect(endpoint).toEqual({ host: "10.0.0.5", port: 6543, database: "facts", socket: false });
    expect(pgLocation(endpoint)).toBe("postgresql://10.0.0.5:6543/facts");
    expect(pgLocation(pgEndpoint({ connectionString: "postgres://u@[::1]:5432/facts" }))).toBe(
      "postgresql://[::1]:5432/facts",
    );
    expect(pgLocation(pgEndpoint({ connectionString: "postgres:///facts?host=/run/pg" }))).toMatch(
      /^postgresql:\/\/\/facts\?host=\/run\/pg&port=\d+$/,
    );
  });

  it("refuses what is not a URL, without repeating it", () => {
    expect(() => pgEndpoint({ connectionString: "facts.db" })).toThrow(FactError);
    expect(() => pgEndpoint({ connectionString: "secret-password-in-a-typo" })).toThrow(/not a URL/);
    try {
      pgEndpoint({ connectionString: "postgres://u:hunter2@db.invalid:notaport/facts" });
    } catch (error) {
      expect(String((error as Error).message)).not.toContain("hunter2");
    }
  });
});
