/**
 * The JSON Schema (draft 2020-12) of what we write, generated from the Zod schemas
 * with zod 4's own `z.toJSONSchema`. The committed `schema/ocp-envelope.schema.json`
 * is this output; a test keeps the two equal.
 */
import { z } from "zod";
import { EnvelopeSchema } from "./schemas.js";

/** The `$id` of our generated schema. */
export const ENVELOPE_SCHEMA_ID = "urn:ocp-provider:schema:ocp-envelope:1.0-draft";

/** Builds the envelope JSON Schema: one root `oneOf` over the envelopes, every shape under `$defs`. */
export function buildEnvelopeJsonSchema(): Record<string, unknown> {
  const generated = z.toJSONSchema(EnvelopeSchema, { target: "draft-2020-12", io: "output" }) as Record<
    string,
    unknown
  >;
  const defs = generated.$defs as Record<string, Record<string, unknown>>;
  const root = defs.Envelope ?? {};
  delete defs.Envelope;
  return {
    $schema: generated.$schema,
    $id: ENVELOPE_SCHEMA_ID,
    title: "OCP envelope (ocp/1.0-draft), as written by ocp-provider",
    description:
      "Generated from the Zod schemas in framework/src/wire by z.toJSONSchema. Do not edit by hand: run `npm run schema -w ocp-provider`.",
    ...withoutMeta(root),
    $defs: defs,
  };
}

function withoutMeta(schema: Record<string, unknown>): Record<string, unknown> {
  const { title: _title, ...rest } = schema;
  return rest;
}
