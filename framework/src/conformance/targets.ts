/**
 * What the suite is run against: a command it spawns, or a URL already listening.
 */

/** A provider the suite spawns and talks to over stdin/stdout. */
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

/** What {@link runConformance} is run against. */
export type ConformanceTarget = StdioTarget | HttpTarget;

/** The transport a target is reached over. */
export type TargetTransport = ConformanceTarget["transport"];
