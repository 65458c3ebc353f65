/**
 * One conformance suite, run against every provider this repository ships, over
 * stdio and over HTTP. Each row is how a host starts the provider; add a row when
 * a new provider ships.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { openFactStore } from "ocp-plugin-facts";
import { type CheckResult, type ConformanceTarget, runConformance } from "ocp-provider/conformance";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OCP_BIN } from "../test-support/child.js";

const RIPGREP_BIN = fileURLToPath(new URL("../../plugins/ripgrep/bin/ocp-ripgrep.js", import.meta.url));
const SYMBOLS_BIN = fileURLToPath(new URL("../../plugins/symbols/bin/ocp-symbols.js", import.meta.url));
const SYMBOLS_CACHE = mkdtempSync(join(tmpdir(), "ocp-symbols-conformance-"));
const FACTS_BIN = fileURLToPath(new URL("../../plugins/facts/bin/ocp-facts.js", import.meta.url));
const FACTS_DIR = mkdtempSync(join(tmpdir(), "ocp-facts-conformance-"));
const FACTS_DB = join(FACTS_DIR, "team.db");

beforeAll(async () => {
  const store = await openFactStore({ db: FACTS_DB });
  await store.setFunctional("leads");
  await store.assert({
    subject: "platform team",
    predicate: "leads",
    statement: "Ana leads the platform team.",
    validFrom: "2023-01-01",
  });
  await store.assert({
    subject: "platform team",
    predicate: "leads",
    statement: "Ben leads the platform team.",
    validFrom: "2025-02-01",
  });
  await store.assert({
    subject: "retry policy",
    predicate: "rule",
    statement: "Retries back off exponentially from 100 ms,\ndoubling each attempt,\nat most 5 attempts.",
    validFrom: "2024-06-01",
  });
  await store.close();
});

import { REPO, startListening } from "./fixture.js";

interface ShippedProvider {
  /** How the provider is named in test output. */
  name: string;
  /** The command line a host runs for stdio: `node <args>`. */
  stdio: readonly string[];
  /** The command line that serves it over HTTP and prints `listening on http://…` to stderr. */
  http: readonly string[];
  /** Goals it can answer, so the frame checks have frames to judge (default: the suite's generic goals). */
  goals?: readonly string[];
}

const SHIPPED: readonly ShippedProvider[] = [
  {
    name: "docs (examples/docs-provider.ts)",
    stdio: [OCP_BIN, "serve", "examples/docs-provider.ts"],
    http: [OCP_BIN, "serve", "examples/docs-provider.ts", "--http", "127.0.0.1:0"],
    goals: ["how are token costs counted"],
  },
  {
    name: "hello (examples/hello-provider.ts)",
    stdio: [OCP_BIN, "serve", "examples/hello-provider.ts"],
    http: [OCP_BIN, "serve", "examples/hello-provider.ts", "--http", "127.0.0.1:0"],
    goals: ["which branch do deploys run from"],
  },
  {
    name: "ripgrep (ocp-ripgrep over framework/src)",
    stdio: [RIPGREP_BIN, "--root", "framework/src"],
    http: [RIPGREP_BIN, "--root", "framework/src", "--http", "127.0.0.1:0"],
    goals: ["packFrames maxTokens budget"],
  },
  {
    name: "symbols (ocp-symbols over framework/src)",
    // A cache directory of its own, so the test never writes into the repository.
    stdio: [SYMBOLS_BIN, "--root", "framework/src", "--cache-dir", SYMBOLS_CACHE],
    http: [SYMBOLS_BIN, "--root", "framework/src", "--cache-dir", SYMBOLS_CACHE, "--http", "127.0.0.1:0"],
    goals: ["packFrames", "defineProvider"],
  },
  {
    name: "facts (ocp-facts serve over a SQLite store)",
    stdio: [FACTS_BIN, "serve", "--db", FACTS_DB],
    http: [FACTS_BIN, "serve", "--db", FACTS_DB, "--http", "127.0.0.1:0"],
    goals: ["retry policy", "who leads the platform team"],
  },
];

afterAll(() => {
  rmSync(SYMBOLS_CACHE, { recursive: true, force: true });
  rmSync(FACTS_DIR, { recursive: true, force: true });
});

/** The checks that read frames: they must have judged real frames, not skipped for want of any. */
const FRAME_CHECKS = ["frame-validity", "budget-honesty", "cost-honesty", "kinds-filter", "max-frames"];

function expectConformant(checks: readonly CheckResult[]): void {
  const failed = checks.filter((check) => check.status === "fail");
  expect(failed.map((check) => `${check.name}: ${check.evidence}`)).toEqual([]);
  for (const name of FRAME_CHECKS) expect(checks.find((check) => check.name === name)?.status, name).toBe("pass");
}

describe.each(SHIPPED)("$name", (provider) => {
  const options = provider.goals !== undefined ? { goals: provider.goals } : {};

  it("is conformant over stdio", async () => {
    const target: ConformanceTarget = {
      transport: "stdio",
      command: process.execPath,
      args: provider.stdio,
      cwd: REPO,
    };
    const report = await runConformance(target, options);
    expectConformant(report.checks);
    expect(report.conformant).toBe(true);
  });

  it("is conformant over HTTP", async () => {
    const server = await startListening(process.execPath, provider.http);
    try {
      const report = await runConformance({ transport: "http", url: server.url }, options);
      expectConformant(report.checks);
      expect(report.checks.find((check) => check.name === "http-oversized-body")?.status).toBe("pass");
      expect(report.conformant).toBe(true);
    } finally {
      server.stop();
    }
  });
});
