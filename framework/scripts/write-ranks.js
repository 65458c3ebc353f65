/**
 * Writes dist/ranks/<encoding>.v8 (part of `npm run build`): each BPE encoding's rank
 * table, taken from the installed gpt-tokenizer and stored with node:v8's serializer.
 *
 * Why: every provider process loads the o200k_base table (its costs are counted in it),
 * and gpt-tokenizer ships it as a 2.4 MB JavaScript array literal that took ~250 ms to
 * parse; the same array deserializes in ~80 ms. src/tokens/encoders.ts reads the file
 * when it was written from the gpt-tokenizer installed beside it, and otherwise (no file,
 * another gpt-tokenizer version, a V8 too old to read it) loads gpt-tokenizer's own
 * module, as before: the file saves time and never decides a count.
 *
 * Plain JavaScript, so the build needs nothing but Node to run it.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { serialize } from "node:v8";

const require = createRequire(import.meta.url);
const ENCODINGS = ["o200k_base", "cl100k_base"];
const out = fileURLToPath(new URL("../dist/ranks/", import.meta.url));
// gpt-tokenizer's exports map every subpath to cjs/*.js, its package.json included: find it beside its main.
const version = JSON.parse(
  readFileSync(join(dirname(require.resolve("gpt-tokenizer")), "..", "package.json"), "utf8"),
).version;

mkdirSync(out, { recursive: true });
for (const encoding of ENCODINGS) {
  const ranks = require(`gpt-tokenizer/bpeRanks/${encoding}`).default;
  const file = join(out, `${encoding}.v8`);
  // Written aside and renamed: a provider starting during a build reads the old file or the new one.
  writeFileSync(`${file}.tmp`, serialize({ format: 1, package: "gpt-tokenizer", version, encoding, ranks }));
  renameSync(`${file}.tmp`, file);
}
