/** Listen addresses for command lines that serve over HTTP; pure, so importing it loads no server. */

/**
 * Parses a `[host:]port` listen address (`8080`, `0.0.0.0:8080`, `[::1]:8080`); the host
 * defaults to 127.0.0.1. Returns undefined when `value` is not one, so a command line can
 * word its own usage error.
 */
export function parseListenAddress(value: string): { host: string; port: number } | undefined {
  const match = /^(?:(\[[^\]]+\]|[^:[\]]+):)?(\d{1,5})$/.exec(value);
  if (match === null || Number(match[2]) > 65535) return undefined;
  return { host: (match[1] ?? "127.0.0.1").replace(/^\[|\]$/g, ""), port: Number(match[2]) };
}
