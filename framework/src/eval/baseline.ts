/**
 * The BM25 baseline `ocp eval` runs beside the provider under test: the same tree cut
 * into windows of 40 lines, each indexed by MiniSearch with two fields, its text and its
 * file's path (BM25+, default parameters and tokenizer: split on whitespace and
 * punctuation, lower-cased; no stemming, no identifier splitting, no prefix or fuzzy
 * terms, no boosts), ranked by the goal, and packed best-first by the framework's own
 * packer under the same budget, frame limit and exact tokenizer. A window costs what a
 * provider's frame of that text would: `token_cost` counts content only (B1), and
 * packFrames computes it. The path is indexed because any code search sees where a
 * snippet lives ("fix(cors): ..." names src/middleware/cors/index.ts).
 */
import MiniSearch from "minisearch";
import { packFrames } from "../pack/pack.js";
import type { TokenCounter } from "../tokens/counter.js";
import type { TextFile } from "./files.js";

/** Lines per window. */
export const WINDOW_LINES = 40;

/** Lines longer than this (minified code, data) are left out and end a window, as in the ripgrep plugin. */
export const MAX_LINE_BYTES = 1000;

/** One window of a file: lines [start, end], 1-based, inclusive. */
export interface Window {
  readonly path: string;
  readonly start: number;
  readonly end: number;
  readonly text: string;
}

/** A window that shipped, in shipped order. */
export interface ShippedWindow {
  readonly path: string;
  readonly start: number;
  readonly end: number;
  readonly tokenCost: number;
}

/** Cuts a file into windows of up to {@link WINDOW_LINES} lines, skipping over-long lines and blank windows. */
export function windowsOf(file: TextFile): Window[] {
  const lines = file.text.split("\n");
  if (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  const windows: Window[] = [];
  let start = -1;
  const close = (end: number) => {
    if (start < 0) return;
    const text = `${lines.slice(start, end).join("\n")}\n`;
    if (text.trim() !== "") windows.push({ path: file.path, start: start + 1, end, text });
    start = -1;
  };
  lines.forEach((line, index) => {
    if (Buffer.byteLength(line, "utf8") > MAX_LINE_BYTES) {
      close(index);
      return;
    }
    if (start < 0) start = index;
    if (index + 1 - start === WINDOW_LINES) close(index + 1);
  });
  close(lines.length);
  return windows;
}

/** A BM25 index over the windows of a tree's files. */
export class Bm25Baseline {
  readonly #windows: Window[];
  readonly #index: MiniSearch<{ id: number; text: string; path: string }>;

  constructor(files: readonly TextFile[]) {
    this.#windows = files.flatMap(windowsOf);
    this.#index = new MiniSearch({ fields: ["text", "path"], storeFields: [] });
    this.#index.addAll(this.#windows.map((window, id) => ({ id, text: window.text, path: window.path })));
  }

  /** How many windows are indexed. */
  get size(): number {
    return this.#windows.length;
  }

  /** The windows that ship for `goal` under `maxTokens` and `maxFrames`, best first. */
  answer(goal: string, maxTokens: number, maxFrames: number, counter: TokenCounter): ShippedWindow[] {
    const results = this.#index.search(goal);
    const top = results[0]?.score ?? 0;
    if (top <= 0) return [];
    const candidates = results.map((result) => {
      const window = this.#windows[result.id as number] as Window;
      return {
        id: `${window.path}#L${window.start}-${window.end}`,
        kind: "snippet" as const,
        content: window.text,
        score: result.score / top,
        window,
      };
    });
    const packed = packFrames(candidates, { maxTokens, maxFrames, counter });
    return packed.frames.map((frame) => ({
      path: frame.candidate.window.path,
      start: frame.candidate.window.start,
      end:
        frame.candidate.window.start +
        (frame.keptLines ?? frame.candidate.window.end - frame.candidate.window.start + 1) -
        1,
      tokenCost: frame.tokenCost,
    }));
  }
}
