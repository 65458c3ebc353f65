/**
 * ocp-plugin-ripgrep: the code snippets most relevant to a goal, found with real
 * ripgrep, within budget, with citations a host can verify.
 *
 *     import { ripgrep } from "ocp-plugin-ripgrep";
 *     defineProvider({ ..., plugins: [ripgrep({ root: "." })] });
 *
 * Also: `ripgrepProvider()` (what the `ocp-ripgrep` command serves) and
 * `listFiles()` (files as the plugin sees them, for indexing plugins).
 */

export { type Anchors, parseAnchors } from "./anchors.js";
export { type ListFilesOptions, listFiles } from "./list-files.js";
export { DEFAULTS, type RipgrepOptions } from "./options.js";
export { describeSearch, PACKAGE_VERSION, ripgrep, searchText } from "./plugin.js";
export { RIPGREP_SCORE_STEP, type RipgrepProviderOptions, ripgrepProvider } from "./provider.js";
export { RANK_WEIGHTS, relevance, type SnippetFeatures } from "./rank.js";
export { type FindRipgrepOptions, findRipgrep, type RipgrepBinary } from "./rg-binary.js";
export { queryTerms, type Term, type TermSource } from "./terms.js";
export { mergeWindows, type SnippetWindow, type WindowOptions } from "./windows.js";
