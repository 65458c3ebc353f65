/**
 * `ocp-provider/cli`: what the bins of ocp-provider, its plugins and
 * create-ocp-provider share — help and usage errors, and when to colour.
 * Light on purpose: it loads nothing of the core.
 */
export { CodedError, isCodedError } from "../coded-error.js";
export { argsErrorMessage, usageErrorLine, wantsHelp, wantsVersion } from "./args.js";
export { useColor } from "./color.js";
