/**
 * Where a PostgreSQL URL leads, as the driver will connect: the host judged for
 * egress must be the host the queries travel to.
 *
 * The driver (`pg`) reads a URL with its own parser, pg-connection-string — which
 * keeps the *last* `?host=` and ignores an empty one — then falls back to the PG*
 * environment variables (`PGHOST`, `PGPORT`, `PGDATABASE`, `PGUSER`), then to its
 * defaults (`localhost:5432`). A second parser here would disagree with it somewhere
 * (it once did: `?host=` and `?host=localhost&host=db.example.com` were judged local).
 * So nothing here parses the URL: {@link pgEndpoint} builds a `pg.Client` from the very
 * options the pool gets — it resolves everything in its constructor and connects only
 * when asked, which it never is — and reads where it would go.
 *
 * The pure-JavaScript driver opens one host: a list (`a,b`) is one name to it, which no
 * resolver knows. libpq's `PGHOSTADDR` and `PGSERVICE` are not read by it (only by
 * pg-native, which this package does not use), so they change nothing here either.
 */
import { BlockList, isIP } from "node:net";
import pg from "pg";
import { FACT_ERRORS, FactError } from "./errors.js";

/** Where the driver connects. */
export interface PgEndpoint {
  /** A host name or address, or a Unix-socket directory (it starts with `/`). */
  readonly host: string;
  readonly port: number;
  readonly database: string;
  /** True when {@link host} is a Unix-socket directory. */
  readonly socket: boolean;
}

/** Reads a URL the way the pool will: the message never repeats the URL, which may hold a password. */
export function pgEndpoint(config: pg.ClientConfig): PgEndpoint {
  const url = config.connectionString;
  if (url !== undefined && !URL.canParse(url)) {
    // The driver would take a relative string as a path under a host named "base": refuse it as a typo.
    throw new FactError(
      FACT_ERRORS.CONFIG,
      "the PostgreSQL URL is not a URL (expected postgres://user@host:port/database)",
    );
  }
  let client: pg.Client;
  try {
    client = new pg.Client(config);
  } catch (error) {
    throw new FactError(FACT_ERRORS.CONFIG, `the PostgreSQL URL is unusable: ${(error as Error).message}`);
  }
  const host = String(client.host ?? "");
  const database = String(client.database ?? client.user ?? "postgres");
  return { host, port: client.port, database, socket: host.startsWith("/") };
}

/** Loopback addresses: 127.0.0.0/8 and ::1, in any spelling `net` reads as an address (`::ffff:127.0.0.1` too). */
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet("127.0.0.0", 8, "ipv4");
LOOPBACK.addAddress("::1", "ipv6");

/**
 * True when `host` names this machine beyond doubt: `localhost`, a loopback address, or
 * a Unix socket. Any other name counts as off the machine (`db.internal`, even `127.1`,
 * which some resolvers read as 127.0.0.1): the safe answer is the one that asks the user.
 */
export function isLocalPgHost(host: string): boolean {
  if (host.startsWith("/")) return true;
  if (host.toLowerCase() === "localhost") return true;
  const family = isIP(host);
  return family !== 0 && LOOPBACK.check(host, family === 6 ? "ipv6" : "ipv4");
}

/**
 * True when the store at `url` is on this machine (loopback or a Unix socket), so a
 * query's words never leave it. Judged on the host the driver connects to, with the
 * PG* variables of this process as it will read them.
 */
export function pgIsLocal(url: string): boolean {
  return isLocalPgHost(pgEndpoint({ connectionString: url }).host);
}

/** Where an endpoint is, for messages: host, port and database, never the user or password. */
export function pgLocation(endpoint: PgEndpoint): string {
  const { host, port, database } = endpoint;
  if (endpoint.socket) return `postgresql:///${database}?host=${host}&port=${port}`;
  return `postgresql://${host.includes(":") ? `[${host}]` : host}:${port}/${database}`;
}
