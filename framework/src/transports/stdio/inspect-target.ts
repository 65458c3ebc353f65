/**
 * `ocp inspect stdio -- <command> [args...]`: the provider is a command the
 * inspector spawns (several times: some checks need a fresh process).
 */
import { UsageError } from "../../cli/command.js";
import type { InspectTarget, StdioTarget } from "../targets.js";

/** How `ocp inspect` names a provider spoken to over stdio. */
export const stdioInspect: InspectTarget<StdioTarget> = {
  synopsis: "stdio [options] -- <command> [args...]",
  usage: `stdio [options] -- <command> [args...]
      Spawn the provider (several times: some checks need a fresh process) and check it over stdio.`,
  options: {},
  target({ positionals, rest }) {
    if (positionals.length > 0)
      throw new UsageError(`put the provider's command after --: ... stdio -- ${positionals.join(" ")}`);
    const [command, ...args] = rest;
    if (command === undefined) throw new UsageError("stdio needs the provider's command after --");
    return { transport: "stdio", command, args };
  },
};
