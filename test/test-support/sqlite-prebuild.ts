/**
 * better-sqlite3 compiles from source on every fresh install on these machines (no
 * prebuilt binary is reachable): over a minute of both cores each time. A test that has
 * watched one install compile it can hand that build to the installs after it, packed as
 * better-sqlite3's published prebuilt binaries are and found through prebuild-install's
 * own `local_prebuilds` option — what an install with internet access does with a
 * download. Their install script still runs, and whatever uses the binary still loads it.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** The environment variable prebuild-install reads for better-sqlite3's local prebuilds folder. */
export const SQLITE_PREBUILDS_ENV = "npm_config_better_sqlite3_local_prebuilds";

/**
 * Packs the better-sqlite3 that an install compiled under `nodeModules` into `folder` as
 * prebuild-install's asset; returns `folder`, or `undefined` when there is no such build.
 */
export function packSqlitePrebuild(nodeModules: string, folder: string): string | undefined {
  const module = join(nodeModules, "better-sqlite3");
  if (!existsSync(join(module, "build/Release/better_sqlite3.node"))) return undefined;
  const { version } = JSON.parse(readFileSync(join(module, "package.json"), "utf8"));
  mkdirSync(folder, { recursive: true });
  // prebuild-install's asset name: {name}-v{version}-{runtime}-v{abi}-{platform}{libc}-{arch}.tar.gz
  const asset = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  execFileSync("tar", ["-czf", join(folder, asset), "-C", module, "build/Release/better_sqlite3.node"]);
  return folder;
}
