/**
 * What counts as loopback, for the DNS-rebinding guard of the HTTP front doors (this
 * transport and the MCP bridge's). A web page whose DNS name an attacker rebinds to
 * 127.0.0.1 reaches a loopback server with its own name in the Host header; refusing any
 * Host but loopback's is what stops it. Both sides are judged by what they are, not by how
 * they are spelled: `127.1`, `0x7f.1`, `2130706433`, `LOCALHOST`, `localhost.`,
 * `[::ffff:127.0.0.1]` and `0:0:0:0:0:0:0:1` are loopback too. Hostnames are read the way
 * a browser reads them (the WHATWG URL parser), so what a page can send is what is judged.
 */
import { BlockList, isIP } from "node:net";

const LOOPBACK_ADDRESSES = new BlockList();
LOOPBACK_ADDRESSES.addSubnet("127.0.0.0", 8, "ipv4");
LOOPBACK_ADDRESSES.addAddress("::1", "ipv6");
// IPv4-mapped IPv6 (::ffff:127.0.0.1): BlockList checks those against the IPv4 rule above.

/**
 * `host` (an address, a name, or a bracketed IPv6 literal) in the form a browser's URL
 * parser gives it: IPv4 in dotted decimal, IPv6 compressed in brackets, names in lower
 * case with no trailing dot. Undefined when it is not a host at all.
 */
export function canonicalHost(host: string): string | undefined {
  const bare = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
  if (bare === "" || /[/?#@\\\s]/.test(bare)) return undefined;
  let hostname: string;
  try {
    hostname = new URL(`http://${bare.includes(":") ? `[${bare}]` : bare}/`).hostname;
  } catch {
    return undefined;
  }
  // "localhost." is the same name as "localhost" (an IPv4 literal's dot the parser drops itself).
  return hostname.endsWith(".") ? hostname.slice(0, -1) : hostname;
}

/** A canonical host without IPv6 brackets: what `listen()` and `isIP()` take. */
function unbracketed(canonical: string): string {
  return canonical.startsWith("[") ? canonical.slice(1, -1) : canonical;
}

/**
 * True for a host only this machine can reach: a loopback address in any spelling
 * (127.0.0.0/8, ::1, ::ffff:127.0.0.0/104) or the name `localhost`. Other names are not
 * resolved here: a name is judged by the address a connection actually arrives on.
 */
export function isLoopback(host: string): boolean {
  const canonical = canonicalHost(host);
  if (canonical === undefined) return false;
  if (canonical === "localhost") return true;
  const address = unbracketed(canonical);
  const family = isIP(address);
  return family !== 0 && LOOPBACK_ADDRESSES.check(address, family === 4 ? "ipv4" : "ipv6");
}

/**
 * The address to hand `listen()` for a bind host in any spelling (`0x7f.1` → 127.0.0.1,
 * `[::1]` → ::1, `localhost.` → localhost); the host as given when it is not one.
 */
export function listenHost(host: string): string {
  const canonical = canonicalHost(host);
  return canonical === undefined ? host : unbracketed(canonical);
}

/**
 * The hostname a Host header names, canonical (see {@link canonicalHost}): "[::1]:8080" →
 * "[::1]", "LOCALHOST:80" → "localhost", "127.1" → "127.0.0.1". Undefined for anything
 * but a bare `host[:port]` (user info, a path), which no browser sends.
 */
export function hostHeaderName(header: string): string | undefined {
  const port = /^(.*?)(?::\d{1,5})?$/.exec(header);
  const host = port?.[1] ?? header;
  // An unbracketed IPv6 literal is no Host header; "::1" would otherwise read as host ":" port 1.
  if (!host.startsWith("[") && host.includes(":")) return undefined;
  return canonicalHost(host);
}

/**
 * Decides, per request, whether its Host header may be served. A request that arrived
 * over loopback (its connection's local address is one: every request on a loopback
 * bind, and those on a wildcard bind — 0.0.0.0, :: — that came through 127.0.0.1 or ::1)
 * must name loopback in its Host header (an address in any spelling, `localhost`), or
 * the name the server was bound to, or one of `allowedHosts`. Others are not concerned:
 * a client on the network names the machine as it knows it. A request with no connection
 * (an in-process `app.request()`) is judged by the bind address; a bind by name counts as
 * loopback there, so the guard is on unless the bind is a non-loopback address.
 */
export function hostGuard(
  bind: string,
  allowedHosts: readonly string[] = [],
): (hostHeader: string | undefined, localAddress: string | undefined) => boolean {
  const allowed = new Set<string>();
  for (const host of allowedHosts) {
    const canonical = canonicalHost(host);
    if (canonical !== undefined) allowed.add(canonical);
  }
  const bound = canonicalHost(bind);
  // The name the operator bound (`--http myhost:8080`) is theirs, not a page's: accepted.
  if (bound !== undefined && isIP(unbracketed(bound)) === 0) allowed.add(bound);
  const guardedWithoutSocket = bound === undefined || isIP(unbracketed(bound)) === 0 || isLoopback(bound);
  return (hostHeader, localAddress) => {
    const guarded = localAddress === undefined ? guardedWithoutSocket : isLoopback(localAddress);
    if (!guarded) return true;
    const name = hostHeader === undefined ? undefined : hostHeaderName(hostHeader);
    return name !== undefined && (isLoopback(name) || allowed.has(name));
  };
}
