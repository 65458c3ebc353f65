/**
 * Where a provider is reached over each transport of the OCP wire: a command to
 * spawn, or a URL already listening. What `ocp inspect` checks and a host connects to.
 * (A leaf module, so the host side can name transports without loading the table;
 * `transports.test.ts` holds it equal to the table's wire transports.)
 */

/** A provider spawned and spoken to over stdin/stdout. */
export interface StdioTarget {
  readonly transport: "stdio";
  readonly command: string;
  readonly args?: readonly string[];
  readonly cwd?: string;
  /** Extra environment variables. */
  readonly env?: NodeJS.ProcessEnv;
}

/** A provider already listening for streamable HTTP. */
export interface HttpTarget {
  readonly transport: "http";
  /** Where envelopes are POSTed, e.g. `http://127.0.0.1:8080/`. */
  readonly url: string;
  /** Sent as `Authorization: Bearer <token>`. */
  readonly token?: string;
}

/** A provider to reach: what `runConformance` is run against. */
export type ProviderTarget = StdioTarget | HttpTarget;

/** What `runConformance` is run against (the same as {@link ProviderTarget}). */
export type ConformanceTarget = ProviderTarget;

/** The transport a target is reached over. */
export type TargetTransport = ProviderTarget["transport"];
