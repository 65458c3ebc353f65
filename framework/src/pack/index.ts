/** `ocp-provider/pack`: the budget packer and the line arithmetic it cuts with. */

export { POINTER_MAX_TOKENS, regionOdds, VALUE_TOKENS } from "./depth.js";
export { countLines, type LineRange, lineEnds, sliceLines } from "./lines.js";
export {
  CutMemo,
  cutToFit,
  DEFAULT_SCORE_STEP,
  type PackCandidate,
  type PackedFrame,
  type PackOptions,
  type PackResolution,
  type PackResult,
  packFrames,
} from "./pack.js";
