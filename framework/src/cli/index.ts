/**
 * `ocp-provider/cli`: what the bins of ocp-provider, its plugins and
 * create-ocp-provider share — the command runner (parsing, help, usage errors,
 * exit codes), the coded-error base, and when to colour. Light on purpose: it
 * loads nothing of the core. A provider's bin wants `runProviderCommand` from
 * `ocp-provider/serve`, which builds on this.
 */
export { CodedError, isCodedError } from "../coded-error.js";
export { argsErrorMessage, usageErrorLine, wantsHelp, wantsVersion } from "./args.js";
export { useColor } from "./color.js";
export {
  CommandArgs,
  type CommandIo,
  type CommandResult,
  type CommandSpec,
  debugStack,
  failureText,
  type OptionSpecs,
  type ParseCommandOptions,
  parseCommandArgs,
  runCommand,
  type Subcommand,
  UsageError,
} from "./command.js";
