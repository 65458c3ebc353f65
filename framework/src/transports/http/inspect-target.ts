/**
 * `ocp inspect http <url> [--token T]`: the provider is already listening for
 * streamable HTTP at the URL.
 */
import { UsageError } from "../../cli/command.js";
import type { HttpTarget, InspectTarget } from "../targets.js";

/** How `ocp inspect` names a provider spoken to over streamable HTTP. */
export const httpInspect: InspectTarget<HttpTarget> = {
  synopsis: "http <url> [options]",
  usage: `http <url> [options] [--token T]
      Check a provider already listening for streamable HTTP. --token (or OCP_HTTP_TOKEN)
      is sent as "Authorization: Bearer T".`,
  options: { token: { type: "string" } },
  target(args) {
    const [url, ...extra] = args.positionals;
    if (url === undefined || extra.length > 0 || args.rest.length > 0)
      throw new UsageError("http takes exactly one URL");
    try {
      if (!/^https?:$/.test(new URL(url).protocol)) throw new Error("not http(s)");
    } catch {
      throw new UsageError(`'${url}' is not an http:// or https:// URL`);
    }
    const token = args.string("token") ?? process.env.OCP_HTTP_TOKEN;
    return { transport: "http", url, ...(token !== undefined ? { token } : {}) };
  },
};
