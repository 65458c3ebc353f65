/** Regenerates schema/ocp-envelope.schema.json from the Zod schemas (`npm run schema -w ocp-provider`). */
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { buildEnvelopeJsonSchema } from "../src/wire/json-schema.js";

const target = fileURLToPath(new URL("../schema/ocp-envelope.schema.json", import.meta.url));
writeFileSync(target, `${JSON.stringify(buildEnvelopeJsonSchema(), null, 2)}\n`);
process.stderr.write(`wrote ${target}\n`);
