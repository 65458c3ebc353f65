/**
 * schema-validity: every message the provider sent during the run — every stdout
 * line, every HTTP response body — validates under the reference JSON Schema.
 */
import { clip } from "../../host/clip.js";
import { readTokenizerOffer } from "../../wire/extensions.js";
import { type MessageLog, referenceSchemaErrors } from "../schema.js";
import { type CheckVerdict, defineCheck } from "./shared/check.js";
import { verdict } from "./shared/frames.js";

/** The verdict over everything `log` recorded. */
export function schemaValidity(log: MessageLog): CheckVerdict {
  const received = log.messages();
  const violations: string[] = [];
  for (const { where, text } of received) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      violations.push(`${where} is not JSON: ${JSON.stringify(clip(text, 60))}`);
      continue;
    }
    // The ack to a handshake that asked for the tokenizer extension may carry its two
    // fields (valid by the extension's schema); the rest is the protocol's.
    if (log.answersTokenizerRequest(value) && readTokenizerOffer(value) !== undefined) {
      const { tokenizer: _tokenizer, tokenizers: _tokenizers, ...protocol } = value as Record<string, unknown>;
      value = protocol;
    }
    const errors = referenceSchemaErrors(value);
    if (errors !== undefined) violations.push(`${where}: ${errors}`);
  }
  if (received.length === 0) return verdict("skip", "the provider sent nothing to validate");
  if (violations.length === 0) {
    return verdict("pass", `all ${received.length} messages received validate under the reference schema`);
  }
  const shown = violations.slice(0, 3).join("; ");
  const more = violations.length > 3 ? `; and ${violations.length - 3} more` : "";
  return verdict("fail", `${violations.length} of ${received.length} messages invalid: ${shown}${more}`);
}

/** The schema-validity check: judged after every other check of the run. */
export const schemaValidityCheck = defineCheck({
  name: "schema-validity",
  appliesTo: "every",
  uses: "whole-run",
  run: async (ctx) => schemaValidity(ctx.log),
});
