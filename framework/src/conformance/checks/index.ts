/**
 * Every conformance check, in report order: the reference suite's five first, under
 * the same names, then ours. A new check is one module beside this file and one
 * row here; `checks.test.ts` fails on a module left out or a row without its module.
 */

import type { TargetTransport } from "../../transports/targets.js";
import { budgetHonestyCheck } from "./budget-honesty.js";
import { costHonestyCheck } from "./cost-honesty.js";
import { eofExit } from "./eof-exit.js";
import { frameValidityCheck } from "./frame-validity.js";
import { garbage } from "./garbage.js";
import { handshake } from "./handshake.js";
import { httpBadJson } from "./http-bad-json.js";
import { httpOversizedBody } from "./http-oversized-body.js";
import { kindsFilterCheck } from "./kinds-filter.js";
import { malformedInputTolerance } from "./malformed-input-tolerance.js";
import { maxFramesCheck } from "./max-frames.js";
import { pipelining } from "./pipelining.js";
import { schemaValidityCheck } from "./schema-validity.js";
import { appliesTo, type Check } from "./shared/check.js";
import { shutdownClean } from "./shutdown-clean.js";
import { unknownFields } from "./unknown-fields.js";
import { versionMismatch } from "./version-mismatch.js";

/** The registry: every check, in report order. */
export const CHECKS = [
  handshake,
  frameValidityCheck,
  budgetHonestyCheck,
  shutdownClean,
  malformedInputTolerance,
  schemaValidityCheck,
  costHonestyCheck,
  kindsFilterCheck,
  maxFramesCheck,
  versionMismatch,
  pipelining,
  unknownFields,
  eofExit,
  garbage,
  httpBadJson,
  httpOversizedBody,
] as const;

/**
 * The checks that judge frames: with no frame in any reply they have nothing to judge,
 * and a run is not verified (see `judge` in run.ts).
 */
export const FRAME_CHECKS = [
  frameValidityCheck.name,
  budgetHonestyCheck.name,
  costHonestyCheck.name,
  kindsFilterCheck.name,
  maxFramesCheck.name,
] as const;

/** The name of a registered check. */
export type RegisteredCheckName = (typeof CHECKS)[number]["name"];

/** The checks that run over `transport`, in report order. */
export const checksFor = (transport: TargetTransport): readonly Check<RegisteredCheckName>[] =>
  CHECKS.filter((check) => appliesTo(check, transport));
