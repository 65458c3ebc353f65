/**
 * The transport table and the folders agree: every folder here is a row's home and
 * every row living here has its folder, holding a server and a client half, a
 * conformance session and suite, and how `ocp inspect` names its target; a front door's row names a package that is
 * installed, and has no folder in the core. The wire transports a target can name
 * are exactly the table's rows with a conformance suite (checked by the compiler).
 */
import { readdirSync } from "node:fs";
import { describe, expect, expectTypeOf, it } from "vitest";
import { TRANSPORTS, type TransportName, WIRE_TRANSPORTS, type WireTransport } from "./table.js";
import type { TargetTransport } from "./targets.js";

const HERE = new URL("./", import.meta.url);
const folders = readdirSync(HERE, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);
const rows = Object.entries(TRANSPORTS) as [TransportName, (typeof TRANSPORTS)[TransportName]][];

describe("the transport table", () => {
  it("has a row for every folder, and a folder for every row that lives here", () => {
    const homes = rows.flatMap(([, row]) => ("folder" in row.home ? [row.home.folder] : []));
    expect([...folders].sort()).toEqual([...homes].sort());
  });

  it("finds each transport's halves in its folder", () => {
    for (const folder of folders) {
      const files = readdirSync(new URL(`${folder}/`, HERE));
      const parts = ["server.ts", "client.ts", "conformance-session.ts", "conformance-suite.ts", "inspect-target.ts"];
      for (const half of parts) {
        expect(files, `transports/${folder}/${half}`).toContain(half);
      }
    }
  });

  it("keeps a front door in its own package, which is installed", async () => {
    for (const [name, row] of rows) {
      if (!("package" in row.home)) continue;
      expect(folders, `${name} lives in ${row.home.package}, not in the core`).not.toContain(name);
      expect(import.meta.resolve(row.home.package)).toMatch(/^file:/);
    }
  });

  it("loads each wire transport's suite, and names them in table order", async () => {
    expect(WIRE_TRANSPORTS).toEqual(rows.filter(([, row]) => "conformance" in row).map(([name]) => name));
    for (const name of WIRE_TRANSPORTS) {
      const suite = await TRANSPORTS[name].conformance();
      expect(typeof suite.open).toBe("function");
      expect(typeof suite.run).toBe("function");
    }
    expectTypeOf<WireTransport>().toEqualTypeOf<TargetTransport>();
  });
});
