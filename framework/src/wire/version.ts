/**
 * Protocol version strings and the major-family compatibility rule of ocp/1.0-draft.
 *
 * Two versions interoperate iff they share a major family: the text up to the
 * first dot ("ocp/1.0-draft" and "ocp/1.3" are both family "ocp/1").
 */

/** The protocol version this framework speaks and writes into every `handshake_ack`. */
export const PROTOCOL_VERSION = "ocp/1.0-draft";

/** The grammar `ocp/MAJOR.MINOR[-draft]`, exactly as in the reference schema. */
export const VERSION_PATTERN = /^ocp\/[0-9]+\.[0-9]+(-draft)?$/;

/** The major family of a version string ("ocp/1.0-draft" → "ocp/1"), or undefined if it is not one. */
export function majorFamily(version: string): string | undefined {
  if (!VERSION_PATTERN.test(version)) return undefined;
  return version.slice(0, version.indexOf("."));
}

/** True iff both strings are well-formed versions in the same major family. */
export function versionsCompatible(a: string, b: string): boolean {
  const family = majorFamily(a);
  return family !== undefined && family === majorFamily(b);
}

/**
 * The HTTP binding's session header: the `handshake_ack` response carries it, and a
 * host that sends it back keeps that session's state. Shared by server and client.
 */
export const SESSION_HEADER = "OCP-Session";
