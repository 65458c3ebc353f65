/**
 * `ocp add` and `ocp generate` run create-ocp-provider's codemods, which the core does not
 * depend on. Without it installed (really absent: see withoutPackages), their help still
 * answers and a codemod says what to install (test/e2e/cli.test.ts runs them with it).
 */
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { withoutPackages } from "../test-support/without-package.js";

const install = withoutPackages("ocp-no-create-", ["create-ocp-provider"]);
const OCP = join(install.dir, "node_modules/ocp-provider/bin/ocp.js");
afterAll(() => install.remove());

describe("ocp add / generate without create-ocp-provider", () => {
  it("prints each command's help", async () => {
    for (const command of ["add", "generate"]) {
      const { code, stdout, stderr } = await install.node([OCP, command, "--help"]);
      expect(code, stderr).toBe(0);
      expect(stdout).toContain(`ocp ${command}`);
    }
  });

  it("says what to install instead of running a codemod", async () => {
    const { code, stdout, stderr } = await install.node([OCP, "add", "plugin", "ripgrep"]);
    expect(code).not.toBe(0);
    expect(stdout).toBe("");
    expect(stderr).toContain("'ocp add' needs create-ocp-provider: npm install -D create-ocp-provider");
  });
});
