/**
 * Where the templates are. In the published package they sit in `templates/` beside
 * `dist/` (copied there by `prepack`); in this repository they are the top-level
 * `templates/` folder, which wins so that edits show up without a copy step.
 */
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** The absolute path of the templates folder (with a trailing separator). */
export function templatesDir(): string {
  const monorepo = new URL("../../../", import.meta.url);
  const manifest = new URL("package.json", monorepo);
  if (existsSync(manifest) && existsSync(new URL("templates/base/", monorepo))) {
    const { name } = JSON.parse(readFileSync(manifest, "utf8")) as { name?: string };
    if (name === "ocp-provider-monorepo") return fileURLToPath(new URL("templates/", monorepo));
  }
  const packaged = new URL("../../templates/", import.meta.url);
  if (!existsSync(packaged)) {
    throw new Error(`create-ocp-provider is missing its templates folder (${fileURLToPath(packaged)}): reinstall it`);
  }
  return fileURLToPath(packaged);
}
