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

/** The parts of a parsed command line a transport reads to name its target. */
export interface TargetArgs {
  /** The positional arguments after the transport's name. */
  readonly positionals: readonly string[];
  /** What came after `--`. */
  readonly rest: readonly string[];
  /** True when the option was given. */
  has(name: string): boolean;
  /** A string option's value. */
  string(name: string): string | undefined;
}

/**
 * How `ocp inspect <transport>` names a provider to check over a transport: its usage
 * lines, the options only it takes, and the target it makes of a command line
 * (throwing a usage error, which `ocp inspect` prints as one line and exits 2).
 */
export interface InspectTarget<Target extends ProviderTarget = ProviderTarget> {
  /** Usage after the program's name: the synopsis line, then indented lines saying what it does. */
  readonly usage: string;
  /** The one-line synopsis, after the program's name. */
  readonly synopsis: string;
  /** Options only this transport takes, as parseArgs reads them. */
  readonly options: Readonly<Record<string, { readonly type: "string" | "boolean" }>>;
  /** The target a command line names. */
  target(args: TargetArgs): Target;
}
