/** `ocp-provider/tokens`: exact, tokenizer-backed token counts, and the registry of tokenizers. */
export {
  canonicalTokenCount,
  createTokenCounter,
  TOKENIZERS,
  type TokenCounter,
  type TokenCounterOptions,
  type TokenizerName,
} from "./counter.js";
export { type BpeEncodingName, gptTokenizerCount, tiktokenCount } from "./encoders.js";
export { TOKENIZER_ERROR_CODES, TokenizerMissingError } from "./errors.js";
export {
  DEFAULT_TOKENIZER,
  installedTokenizers,
  isInstalled,
  isTokenizerName,
  resolveTokenizer,
  TOKENIZER_SPECS,
  type TokenizerSpec,
  tokenizerSpec,
} from "./registry.js";
