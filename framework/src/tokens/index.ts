/** `ocp-provider/tokens`: exact, tokenizer-backed token counts. */
export {
  canonicalTokenCount,
  createTokenCounter,
  TOKENIZERS,
  type TokenCounter,
  type TokenCounterOptions,
  type TokenizerName,
} from "./counter.js";
export { type BpeEncodingName, gptTokenizerCount, tiktokenCount } from "./encoders.js";
