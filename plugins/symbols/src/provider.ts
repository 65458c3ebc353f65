/**
 * A ready provider around the symbols plugin: what `ocp-symbols` serves.
 */
import { defineProvider, type Logger, type Provider, type TokenizerName } from "ocp-provider";
import type { SymbolsOptions } from "./options.js";
import { PACKAGE_VERSION, symbols } from "./plugin.js";

/** The configuration of {@link symbolsProvider}: the plugin's options plus a few of the provider's. */
export interface SymbolsProviderOptions extends SymbolsOptions {
  /** The provider's name shown to people at consent time. Default `symbols`. */
  providerName?: string;
  /** The tokenizer token costs reproduce. Default `o200k_base`. */
  tokenizer?: TokenizerName;
  /** Where diagnostics go. Default stderr. */
  logger?: Logger;
}

/**
 * A provider that reads files under `root` and sends nothing anywhere. Its cache is
 * derived from what it reads, not context a host gave it, so it declares
 * `{ reads: true, writes: false, egress: false }`.
 */
export function symbolsProvider(options: SymbolsProviderOptions): Provider {
  const { providerName, tokenizer, logger, ...pluginOptions } = options;
  return defineProvider({
    name: providerName ?? "symbols",
    version: PACKAGE_VERSION,
    dataFlow: { reads: true, writes: false, egress: false },
    plugins: [symbols(pluginOptions)],
    root: options.root,
    tokenizer,
    logger,
  });
}
