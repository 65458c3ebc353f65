/** The consent file: named, revocable, persisted, shared between processes, and never clobbered when corrupt. */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ConsentStore } from "./consent.js";
import { ConsentStoreError } from "./errors.js";

const temp = mkdtempSync(join(tmpdir(), "ocp-consent-test-"));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

const cloud = {
  provider: "cloud-docs",
  target: "https://docs.example.com/ocp",
  dataFlow: { reads: true, writes: false, egress: true },
};

describe("ConsentStore", () => {
  it("records consent by name and target, persists it, and revokes it", () => {
    const path = join(temp, "nested", "dir", "consent.json");
    const store = new ConsentStore({ path });
    expect(store.isGranted(cloud)).toBe(false);
    const record = store.grant(cloud);
    expect(record).toMatchObject({ provider: "cloud-docs", target: cloud.target, dataFlow: cloud.dataFlow });
    expect(record.what).toMatch(/query payloads .* may leave this machine/);

    // Another store on the same file (another process, later) sees it.
    const later = new ConsentStore({ path });
    expect(later.isGranted(cloud)).toBe(true);
    // Same name elsewhere, or another name here, is not covered.
    expect(later.isGranted({ ...cloud, target: "https://evil.example.com/ocp" })).toBe(false);
    expect(later.isGranted({ ...cloud, provider: "cloud-docs-2" })).toBe(false);
    expect(statSync(path).mode & 0o777).toBe(0o600);

    expect(later.revoke(cloud)).toBe(true);
    expect(store.isGranted(cloud)).toBe(false);
    expect(later.revoke(cloud)).toBe(false);
    expect(JSON.parse(readFileSync(path, "utf8"))).toEqual({ version: 1, grants: [] });
  });

  it("granting twice keeps one record", () => {
    const store = new ConsentStore({ path: join(temp, "twice.json") });
    store.grant(cloud);
    store.grant(cloud, { what: "goal text only" });
    expect(store.list()).toHaveLength(1);
    expect(store.list()[0]?.what).toBe("goal text only");
  });

  it("fails closed on a corrupt file and never overwrites it", () => {
    const path = join(temp, "corrupt.json");
    writeFileSync(path, '{"version": 1, "grants": [');
    const store = new ConsentStore({ path });
    expect(() => store.isGranted(cloud)).toThrow(ConsentStoreError);
    expect(() => store.grant(cloud)).toThrow(/not valid JSON .* fix or remove it/);
    expect(readFileSync(path, "utf8")).toBe('{"version": 1, "grants": [');

    writeFileSync(path, '{"grants": [{"provider": 1}]}');
    expect(() => store.list()).toThrow(/does not hold/);
  });

  it("refuses a consent that names nothing", () => {
    const store = new ConsentStore({ path: join(temp, "empty.json") });
    expect(() => store.grant({ provider: " ", target: "x" })).toThrow(ConsentStoreError);
  });
});
