/**
 * The reference JSON Schema of ocp/1.0-draft, compiled with ajv for draft 2020-12: the
 * judge of "everything we emit validates". The schema and the golden vectors are vendored
 * in test/reference/ (a fresh clone has nothing beside it); test/reference.test.ts keeps
 * them identical to the spec's copies when those are at hand.
 */
import { readFileSync } from "node:fs";
import { Ajv2020 } from "ajv/dist/2020.js";

/** The vendored reference folder: golden vectors and the reference schema. */
export const REFERENCE_DIR = new URL("../reference/ocp-1.0-draft/", import.meta.url);

const ajv = new Ajv2020({ allErrors: true, strict: false });
const validate = ajv.compile(JSON.parse(readFileSync(new URL("ocp-envelope.schema.json", REFERENCE_DIR), "utf8")));

/** Validates one message against the reference schema; returns ajv's error text, or undefined when valid. */
export function referenceSchemaErrors(message: unknown): string | undefined {
  return validate(message) ? undefined : ajv.errorsText(validate.errors);
}

/** Throws with ajv's explanation unless `message` validates under the reference schema. */
export function assertReferenceValid(message: unknown): void {
  const errors = referenceSchemaErrors(message);
  if (errors !== undefined)
    throw new Error(`not valid under the reference schema: ${errors}\n${JSON.stringify(message)}`);
}
