/**
 * schema-validity: every message the provider sent during the run — every stdout
 * line, every HTTP response body — validates under the reference JSON Schema.
 */
import { clip } from "../../host/clip.js";
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
