/**
 * A ready provider around the ripgrep plugin: what `ocp-ripgrep` serves.
 */
import { defineProvider, type Logger, type Provider, type TokenizerName } from "ocp-provider";
import type { RipgrepOptions } from "./options.js";
import { PACKAGE_VERSION, ripgrep } from "./plugin.js";

/** The configuration of {@link ripgrepProvider}: the plugin's options plus a few of the provider's. */
export interface RipgrepProviderOptions extends RipgrepOptions {
  /** The provider's name shown to people at consent time. Default `ripgrep`. */
  providerName?: string;
  /** The tokenizer token costs reproduce. Default `o200k_base`. */
  tokenizer?: TokenizerName;
  /** Where diagnostics go. Default stderr. */
  logger?: Logger;
}

/** A provider that reads files under `root` and sends nothing anywhere: `{ reads, !writes, !egress }`. */
export function ripgrepProvider(options: RipgrepProviderOptions): Provider {
  const { providerName, tokenizer, logger, ...pluginOptions } = options;
  return defineProvider({
    name: providerName ?? "ripgrep",
    version: PACKAGE_VERSION,
    dataFlow: { reads: true, writes: false, egress: false },
    plugins: [ripgrep(pluginOptions)],
    root: options.root,
    tokenizer,
    logger,
  });
}
