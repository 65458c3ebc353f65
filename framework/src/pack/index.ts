/** `ocp-provider/pack`: the budget packer and the line arithmetic it cuts with. */

export { countLines, lineEnds, sliceLines } from "./lines.js";
export {
  CutMemo,
  cutToFit,
  type PackCandidate,
  type PackedFrame,
  type PackOptions,
  type PackResult,
  packFrames,
} from "./pack.js";
