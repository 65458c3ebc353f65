// prepack: the templates live at the repository's top level, and each reference plugin
// declares itself in the "ocp" field of its package.json under plugins/. The published
// package carries a copy of both: generators/templates/ and generators/plugins.json
// (gitignored), found at run time by src/create/template-dir.ts and reference-plugins.ts.
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const source = fileURLToPath(new URL("../../templates/", import.meta.url));
const target = fileURLToPath(new URL("../templates/", import.meta.url));
if (!existsSync(source)) {
  console.error(`copy-templates: no templates at ${source}`);
  process.exit(1);
}
rmSync(target, { recursive: true, force: true });
cpSync(source, target, { recursive: true });

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
writeFileSync(new URL("../plugins.json", import.meta.url), `${JSON.stringify(declared, null, 2)}\n`);
