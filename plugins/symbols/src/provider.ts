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
  /** How sure a score difference makes the packer (docs/packing.md). Default {@link SYMBOLS_SCORE_STEP}. */
  scoreStep?: number;
}

/**
 * The packer's `scoreStep` for symbols' scores: 0.015 of score doubles a region's odds.
 * Calibrated on the tuned hono cases of `ocp eval` (the held-out ones not looked at): at
 * this step the odds the packer gives the top file (0.71 on average) match how often the
 * top file is one the commit changed (acc@1 0.70), and the likelihood of the file that was
 * needed is near its maximum (0.015–0.02). The framework's default, 0.05, reads symbols'
 * compressed scores as a flat ranking and gives the top file a third of that.
 */
export const SYMBOLS_SCORE_STEP = 0.015;

/**
 * A provider that reads files under `root` and sends nothing anywhere. Its cache is
 * derived from what it reads, not context a host gave it, so it declares
 * `{ reads: true, writes: false, egress: false }`.
 */
export function symbolsProvider(options: SymbolsProviderOptions): Provider {
  const { providerName, tokenizer, logger, scoreStep, ...pluginOptions } = options;
  return defineProvider({
    name: providerName ?? "symbols",
    version: PACKAGE_VERSION,
    dataFlow: { reads: true, writes: false, egress: false },
    plugins: [symbols(pluginOptions)],
    root: options.root,
    tokenizer,
    logger,
    scoreStep: scoreStep ?? SYMBOLS_SCORE_STEP,
  });
}
