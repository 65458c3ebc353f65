/**
 * Validating what a provider sends under the reference JSON Schema of
 * ocp/1.0-draft, and the log the schema-validity check judges. The schema ships in this package
 * (`schema/ocp-envelope.reference.schema.json`, a byte-for-byte copy of the
 * reference; a test keeps them equal) and is compiled with ajv for draft 2020-12.
 *
 * A message is validated against the `$defs` entry its `type` names, so the
 * evidence says "/result/frames/0/score must be <= 1" rather than six failed
 * `oneOf` branches.
 */
import { readFileSync } from "node:fs";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import { clip } from "../host/clip.js";

const SCHEMA_URL = new URL("../../schema/ocp-envelope.reference.schema.json", import.meta.url);

const DEFS_BY_TYPE: Record<string, string> = {
  handshake: "Handshake",
  handshake_ack: "HandshakeAck",
  query: "Query",
  frames: "Frames",
  shutdown: "Shutdown",
  error: "Error",
};

let compiled: { ajv: Ajv2020; root: ValidateFunction; byType: Map<string, ValidateFunction> } | undefined;

function validators() {
  if (compiled !== undefined) return compiled;
  const schema = JSON.parse(readFileSync(SCHEMA_URL, "utf8")) as { $id: string };
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  ajv.addSchema(schema);
  const root = ajv.getSchema(schema.$id) as ValidateFunction;
  const byType = new Map(
    Object.entries(DEFS_BY_TYPE).map(([type, def]) => [
      type,
      ajv.getSchema(`${schema.$id}#/$defs/${def}`) as ValidateFunction,
    ]),
  );
  compiled = { ajv, root, byType };
  return compiled;
}

/** Why `message` is not a valid envelope under the reference schema, or undefined if it is. */
export function referenceSchemaErrors(message: unknown): string | undefined {
  const { ajv, root, byType } = validators();
  if (root(message)) return undefined;
  const type = (message as { type?: unknown } | null)?.type;
  const specific = typeof type === "string" ? byType.get(type) : undefined;
  if (specific === undefined) {
    return typeof type === "string"
      ? `'${clip(type, 40)}' is not an envelope type`
      : "not an envelope: no string 'type' field";
  }
  specific(message);
  return clip(ajv.errorsText(specific.errors, { dataVar: "" }), 300);
}

/** One message as it arrived: a stdout line or an HTTP response body. */
export interface Received {
  readonly where: string;
  readonly text: string;
}

/** Everything a provider sent during a run, judged at the end by the schema-validity check. */
export class MessageLog {
  readonly #received: Received[] = [];
  readonly #offers = new Set<string>();

  /**
   * Marks a `handshake_ack` (as parsed) as the answer to a handshake that asked for the
   * tokenizer extension: its two extension fields are the only extra fields allowed in any message.
   */
  allowTokenizerOffer(ack: object): void {
    this.#offers.add(JSON.stringify(ack));
  }

  /** True if `value` is an ack marked by {@link MessageLog.allowTokenizerOffer}. */
  answersTokenizerRequest(value: unknown): boolean {
    return this.#offers.size > 0 && this.#offers.has(JSON.stringify(value));
  }

  /** Records one message; `where` names it in evidence ("main session, line 3"). */
  record(where: string, text: string): void {
    this.#received.push({ where, text });
  }

  /** How many messages were recorded. */
  get size(): number {
    return this.#received.length;
  }

  /** Everything recorded, in the order it arrived (judged by the schema-validity check). */
  messages(): readonly Received[] {
    return this.#received;
  }
}
