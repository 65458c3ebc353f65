/**
 * `ocp inspect --tokenizer gemma3` negotiates Gemma 3 for the main session and recounts
 * every frame in it: a provider that counts in it passes cost- and budget-honesty; one
 * that ignores the request (its costs in o200k) is caught under-reporting.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { assertFixtureBuilt, MISBEHAVING } from "../conformance/fixture.js";
import { OCP_BIN, REPO } from "../test-support/child.js";

const run = promisify(execFile);

async function inspect(args: string[]): Promise<{ code: number; report: Record<string, unknown> }> {
  try {
    const { stdout } = await run(
      process.execPath,
      [OCP_BIN, "inspect", "stdio", "--json", "--timeout", "90000", ...args],
      {
        cwd: REPO,
        maxBuffer: 16 * 1024 * 1024,
      },
    );
    return { code: 0, report: JSON.parse(stdout) };
  } catch (error) {
    const failed = error as { code: number; stdout: string };
    return { code: failed.code, report: JSON.parse(failed.stdout) };
  }
}

const check = (report: Record<string, unknown>, name: string) =>
  (report.checks as { name: string; status: string; evidence: string }[]).find((entry) => entry.name === name);

beforeAll(assertFixtureBuilt);

// Both the provider and the inspector load Gemma 3's vocabulary (seconds each).
describe("ocp inspect --tokenizer gemma3", { timeout: 240_000 }, () => {
  it("negotiates Gemma 3 and finds every cost exact in it", async () => {
    const { code, report } = await inspect([
      "--tokenizer",
      "gemma3",
      "--query",
      "token costs",
      "--",
      process.execPath,
      OCP_BIN,
      "serve",
      "examples/docs-provider.ts",
    ]);
    expect(report).toMatchObject({ conformant: true, tokenizer: "gemma3", negotiated: "gemma3" });
    expect(check(report, "cost-honesty")).toMatchObject({ status: "pass" });
    expect(check(report, "cost-honesty")?.evidence).toContain("re-counted with gemma3: no cost under-reported");
    expect(check(report, "budget-honesty")?.status).toBe("pass");
    expect(check(report, "schema-validity")?.status).toBe("pass");
    expect(code).toBe(0);
  });

  it("catches a provider that ignores the request: its o200k costs are under-reported in Gemma 3", async () => {
    const { code, report } = await inspect([
      "--tokenizer",
      "gemma3",
      "--",
      process.execPath,
      MISBEHAVING,
      "--misbehave",
      "clean",
    ]);
    expect(report.negotiated).toBeUndefined();
    expect(check(report, "cost-honesty")).toMatchObject({ status: "fail" });
    expect(check(report, "cost-honesty")?.evidence).toMatch(/< gemma3 count/);
    expect(code).toBe(1);
  });
});
