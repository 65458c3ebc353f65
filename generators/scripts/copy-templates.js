// prepack: the templates live at the repository's top level; the published package
// carries a copy in generators/templates/ (gitignored), found at run time by
// src/create/template-dir.ts.
import { cpSync, existsSync, rmSync } from "node:fs";
import { fileURLToPath } from "node:url";

const source = fileURLToPath(new URL("../../templates/", import.meta.url));
const target = fileURLToPath(new URL("../templates/", import.meta.url));
if (!existsSync(source)) {
  console.error(`copy-templates: no templates at ${source}`);
  process.exit(1);
}
rmSync(target, { recursive: true, force: true });
cpSync(source, target, { recursive: true });
