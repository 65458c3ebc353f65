import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalHost, hostGuard, hostHeaderName, isLoopback, listenHost } from "./loopback.js";

/** An IPv4 address as a 32-bit number, spelled every way inet_aton and browsers read it. */
function spellings(n: number): string[] {
  const octets = [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255];
  return [
    octets.join("."),
    String(n),
    `0x${n.toString(16)}`,
    `0${n.toString(8)}`,
    `${octets[0]}.${n & 0xffffff}`, // a.b: 127.1
    `${octets[0]}.${octets[1]}.${n & 0xffff}`, // a.b.c
    octets.map((octet) => `0x${octet.toString(16)}`).join("."),
    octets.map((octet) => `0${octet.toString(8)}`).join("."),
    `${octets.join(".")}.`, // a trailing dot
    `[::ffff:${octets.join(".")}]`,
    `::ffff:${((n >>> 16) & 0xffff).toString(16)}:${(n & 0xffff).toString(16)}`,
  ];
}

describe("isLoopback", () => {
  it("judges an IPv4 address by what it is, however it is spelled: 127.0.0.0/8 and nothing else", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 32 - 1 }), (n) => {
        const loopback = n >>> 24 === 127;
        for (const spelling of spellings(n)) expect(isLoopback(spelling), spelling).toBe(loopback);
      }),
      { numRuns: 300 },
    );
    // The first octet at the edges, where a range check would slip.
    for (const n of [0x7f000000, 0x7fffffff, 0x7effffff, 0x80000000]) {
      for (const spelling of spellings(n)) expect(isLoopback(spelling), spelling).toBe(n >>> 24 === 127);
    }
  });

  it("knows ::1 in every spelling, localhost in any case, and refuses names and non-hosts", () => {
    for (const host of ["::1", "[::1]", "0:0:0:0:0:0:0:1", "[0:0:0::1]", "localhost", "LOCALHOST", "localhost."]) {
      expect(isLoopback(host), host).toBe(true);
    }
    for (const host of [
      "::",
      "0.0.0.0",
      "::2",
      "::ffff:10.0.0.1",
      "fe80::1",
      "10.0.0.1",
      "localhost.example",
      "127.0.0.1.nip.io",
      "evil.localhost.com",
      "127.0.0.1@evil.example",
      "evil.example/127.0.0.1",
      "",
      "[",
      "1.2.3.4.5",
    ]) {
      expect(isLoopback(host), host).toBe(false);
    }
  });
});

describe("Host headers and bind addresses", () => {
  it("reads a Host header's name as a browser writes it, or not at all", () => {
    expect(hostHeaderName("LOCALHOST:8080")).toBe("localhost");
    expect(hostHeaderName("127.1:80")).toBe("127.0.0.1");
    expect(hostHeaderName("[0:0:0:0:0:0:0:1]:80")).toBe("[::1]");
    expect(hostHeaderName("[::ffff:127.0.0.1]")).toBe("[::ffff:7f00:1]");
    expect(hostHeaderName("localhost.")).toBe("localhost");
    for (const header of ["", "::1", "a:b:80", "127.0.0.1@evil.example", "evil.example/x", "x y"]) {
      expect(hostHeaderName(header), header).toBeUndefined();
    }
  });

  it("binds any spelling at the address it names", () => {
    expect(listenHost("0x7f.1")).toBe("127.0.0.1");
    expect(listenHost("[::1]")).toBe("::1");
    expect(listenHost("0:0:0:0:0:0:0:1")).toBe("::1");
    expect(listenHost("localhost.")).toBe("localhost");
    expect(listenHost("0.0.0.0")).toBe("0.0.0.0");
    expect(canonicalHost("::")).toBe("[::]");
  });

  it("guards loopback connections whatever the bind, and requests without one by the bind", () => {
    const guard = hostGuard("0.0.0.0", ["proxy.example"]);
    // Arrived over loopback: a rebinding name is refused, loopback's own names and allowed ones pass.
    expect(guard("attacker.example:80", "127.0.0.1")).toBe(false);
    expect(guard("attacker.example:80", "::ffff:127.0.0.1")).toBe(false);
    expect(guard(undefined, "::1")).toBe(false);
    for (const host of ["localhost:1", "127.1:1", "[::1]:1", "PROXY.example"])
      expect(guard(host, "127.0.0.1")).toBe(true);
    // Arrived from the network on a wildcard bind: not concerned.
    expect(guard("attacker.example:80", "192.168.1.5")).toBe(true);
    // No connection (in-process): by the bind; a name bound to is accepted as a Host.
    expect(guard("attacker.example:80", undefined)).toBe(true);
    expect(hostGuard("127.1")("attacker.example", undefined)).toBe(false);
    expect(hostGuard("myhost")("attacker.example", undefined)).toBe(false);
    expect(hostGuard("myhost")("MYHOST:8080", undefined)).toBe(true);
    expect(hostGuard("myhost")("MYHOST:8080", "127.0.0.1")).toBe(true);
  });
});
