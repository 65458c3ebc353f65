/**
 * `npm run bench`: `ocp bench` of the provider, in-process — query time split into search,
 * token counting and packing, the token count cache, and how far estimates are from exact
 * counts — on goals drawn from its frames, starting from the sample question
 * (test/sample.ts). Arguments go on to `ocp bench` (`--budget 2048`, `--json`).
 */
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { GOAL } from "../test/sample.js";

const project = fileURLToPath(new URL("..", import.meta.url));
const ocp = join(dirname(createRequire(import.meta.url).resolve("ocp-provider/package.json")), "bin/ocp.js");
const { status } = spawnSync(
  process.execPath,
  [ocp, "bench", "src/provider.ts", "--goal", GOAL, ...process.argv.slice(2)],
  { cwd: project, stdio: "inherit" },
);
process.exit(status ?? 1);
