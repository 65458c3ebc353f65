/**
 * `ocp-provider/conformance`: prove a provider conformant. {@link runConformance}
 * runs the reference five checks and ours against a stdio command or an HTTP URL
 * and returns a typed report; `ocp inspect` is its command line.
 */

export { FRAME_CHECKS } from "./checks/index.js";
export { DEFAULT_GOALS } from "./checks/shared/main-session.js";
export { MISBEHAVE_MODES, type MisbehaveMode } from "./misbehaving-answers.js";
export { describeTarget, runConformance } from "./run.js";
export { type Sample, type SampleOptions, sampleQuery } from "./sample.js";
export { referenceSchemaErrors } from "./schema.js";
export {
  CHECK_NAMES,
  type CheckName,
  type CheckResult,
  type CheckStatus,
  type ConformanceOptions,
  type ConformanceReport,
  type ConformanceTarget,
  type HttpTarget,
  type StdioTarget,
  type Verdict,
} from "./types.js";
