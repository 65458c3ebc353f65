// prepack: the templates live at the repository's top level, and each reference plugin
// declares itself in the "ocp" field of its package.json under plugins/. The published
// package carries a copy of both: generators/templates/ and generators/plugins.json
// (gitignored), found at run time by src/create/template-dir.ts and reference-plugins.ts.
//
// A copy that already matches is left alone: two packs of the workspaces can run at once
// (the packaging test's and `npm run create`'s in create-cli.test.ts, should test files run
// in parallel), and a pack reading generators/templates while another prepack deletes and
// rewrites it would ship a partial copy.
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** Whether the trees at `a` and `b` hold the same files with the same bytes. */
function sameTree(a, b) {
  if (!existsSync(b)) return false;
  const files = (root) =>
    readdirSync(root, { recursive: true, encoding: "utf8" })
      .filter((path) => statSync(join(root, path)).isFile())
      .sort();
  const mine = files(a);
  const theirs = files(b);
  return (
    mine.length === theirs.length &&
    mine.every((path, i) => path === theirs[i] && readFileSync(join(a, path)).equals(readFileSync(join(b, path))))
  );
}

/** Writes `text` to `url` unless the file holds it already. */
function writeIfChanged(url, text) {
  if (!existsSync(url) || readFileSync(url, "utf8") !== text) writeFileSync(url, text);
}

const source = fileURLToPath(new URL("../../templates/", import.meta.url));
const target = fileURLToPath(new URL("../templates/", import.meta.url));
if (!existsSync(source)) {
  console.error(`copy-templates: no templates at ${source}`);
  process.exit(1);
}
if (!sameTree(source, target)) {
  rmSync(target, { recursive: true, force: true });
  cpSync(source, target, { recursive: true });
}

const plugins = new URL("../../plugins/", import.meta.url);
const declared = [];
for (const folder of readdirSync(plugins, { withFileTypes: true })) {
  const manifest = new URL(`${folder.name}/package.json`, plugins);
  if (!folder.isDirectory() || !existsSync(manifest)) continue;
  const { name, ocp } = JSON.parse(readFileSync(manifest, "utf8"));
  if (ocp !== undefined) declared.push({ ...ocp, package: name });
}
if (declared.length === 0) {
  console.error(
    `copy-templates: no plugin under ${fileURLToPath(plugins)} declares itself ("ocp" in its package.json)`,
  );
  process.exit(1);
}
writeIfChanged(new URL("../plugins.json", import.meta.url), `${JSON.stringify(declared, null, 2)}\n`);
