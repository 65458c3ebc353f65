/**
 * Writes dist/ranks/<encoding>.v8 (part of `npm run build`, after the compile): each BPE
 * encoding's rank table, taken from the installed gpt-tokenizer and stored with node:v8's
 * serializer, as src/tokens/encoders.ts makes and reads it.
 *
 * Why: every provider process loads the o200k_base table (its costs are counted in it),
 * and gpt-tokenizer ships it as a 2.4 MB JavaScript array literal that took ~250 ms to
 * parse; the same array deserializes in ~80 ms. encoders.ts reads the file when it was
 * written from the gpt-tokenizer installed beside it, and otherwise (no file, another
 * gpt-tokenizer version, a V8 too old to read it) loads gpt-tokenizer's own module, as
 * before: the file saves time and never decides a count.
 *
 * Plain JavaScript, so the build needs nothing but Node to run it.
 */
import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { RANK_SNAPSHOTS, rankSnapshotBytes } from "../dist/tokens/encoders.js";

mkdirSync(RANK_SNAPSHOTS, { recursive: true });
for (const encoding of ["o200k_base", "cl100k_base"]) {
  const file = fileURLToPath(new URL(`${encoding}.v8`, RANK_SNAPSHOTS));
  // Written aside and renamed: a provider starting during a build reads the old file or the new one.
  writeFileSync(`${file}.tmp`, rankSnapshotBytes(encoding));
  renameSync(`${file}.tmp`, file);
}
