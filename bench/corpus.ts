/**
 * A deterministic corpus of code-ish text: what search plugins hand the packer and
 * the counter in practice (short multi-line snippets of TypeScript, Python and Rust,
 * with comments, strings, numbers and a little non-ASCII).
 *
 * It never contains U+FEFF or U+0085: on those the framework's counter deliberately
 * leaves gpt-tokenizer for tiktoken, so they would make a "same counts as
 * gpt-tokenizer" check fail for the right reason and a speed comparison unfair.
 */
import { seededRandom } from "./harness.js";

const WORDS = (
  "retry policy config backoff attempts request response handler cache entry token budget frame " +
  "provider plugin query result index symbol range line offset buffer stream reader writer error " +
  "timeout signal session state value count limit score digest path root file docs search match " +
  "node edge graph fact memory episode anchor kind label cursor batch queue worker task job event"
).split(" ");
const TYPES = ["Config", "Request", "Response", "Frame", "Budget", "Session", "Index", "Symbol", "Error", "Result"];
const PROSE = [
  "the budget is checked before the frame ships",
  "keep ids stable so hosts can cite them",
  "naïve implementation — fine for small inputs",
  "counts must match the host's tokenizer → exact",
  "see docs/errors.md for the codes",
  "TODO: stream this instead of buffering ✅",
  "日本語のコメント: 予算を超えない",
  "hot path: avoid allocating per line",
];

type Random = () => number;

function pick<T>(random: Random, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)] as T;
}

function identifier(random: Random): string {
  const parts = [pick(random, WORDS)];
  const more = Math.floor(random() * 3);
  for (let i = 0; i < more; i++) {
    const word = pick(random, WORDS);
    parts.push(word.charAt(0).toUpperCase() + word.slice(1));
  }
  return parts.join("");
}

function snake(random: Random): string {
  return [pick(random, WORDS), pick(random, WORDS)].join("_");
}

function number(random: Random): string {
  return String(Math.floor(random() * (random() < 0.5 ? 100 : 100_000)));
}

const TS_LINES: ((r: Random) => string)[] = [
  (r) =>
    `  const ${identifier(r)} = await ${identifier(r)}.${identifier(r)}(${identifier(r)}, { ${identifier(r)}: ${number(r)} });`,
  (r) =>
    `  if (${identifier(r)}.${identifier(r)} > ${number(r)}) return ${identifier(r)}("${pick(r, WORDS)}-${number(r)}");`,
  (r) => `  // ${pick(r, PROSE)}`,
  (r) =>
    `  for (const ${identifier(r)} of ${identifier(r)}) ${identifier(r)}.push(${identifier(r)}.${identifier(r)} * ${number(r)});`,
  (r) => `  throw new ${pick(r, TYPES)}Error(\`${pick(r, WORDS)} ${pick(r, WORDS)}: \${${identifier(r)}}\`);`,
  (r) => `  ${identifier(r)} ??= new Map<string, ${pick(r, TYPES)}>();`,
];
const PY_LINES: ((r: Random) => string)[] = [
  (r) => `    ${snake(r)} = [${snake(r)} for ${snake(r)} in ${snake(r)} if ${snake(r)}.${snake(r)}]`,
  (r) => `    # ${pick(r, PROSE)}`,
  (r) =>
    `    if ${snake(r)} >= ${number(r)}:\n        raise ${pick(r, TYPES)}Error(f"{${snake(r)}} ${pick(r, WORDS)}")`,
  (r) => `    return {"${pick(r, WORDS)}": ${snake(r)}, "${pick(r, WORDS)}": ${number(r)}}`,
];
const RS_LINES: ((r: Random) => string)[] = [
  (r) => `    let ${snake(r)} = self.${snake(r)}.get(&${snake(r)}).copied().unwrap_or(${number(r)});`,
  (r) => `    // ${pick(r, PROSE)}`,
  (r) => `    if ${snake(r)} > ${number(r)} { return Err(${pick(r, TYPES)}Error::${pick(r, TYPES)}); }`,
  (r) => `    ${snake(r)}.push(${pick(r, TYPES)} { ${snake(r)}: ${number(r)}, ..Default::default() });`,
];

/** One snippet of about `target` UTF-8 bytes (a little more: it ends on a whole line). */
function snippet(random: Random, target: number): string {
  const flavour = Math.floor(random() * 3);
  const [open, body, close] =
    flavour === 0
      ? [`export async function ${identifier(random)}(${identifier(random)}: ${pick(random, TYPES)}) {`, TS_LINES, "}"]
      : flavour === 1
        ? [`def ${snake(random)}(${snake(random)}, ${snake(random)}=${number(random)}):`, PY_LINES, ""]
        : [
            `fn ${snake(random)}(&self, ${snake(random)}: u32) -> Result<${pick(random, TYPES)}, Error> {`,
            RS_LINES,
            "}",
          ];
  const lines = [open];
  let bytes = open.length;
  while (bytes < target) {
    const line = pick(random, body)(random);
    lines.push(line);
    bytes += line.length + 1;
  }
  if (close !== "") lines.push(close);
  return `${lines.join("\n")}\n`;
}

/** `count` distinct snippets of about 110–510 bytes (300 on average), the same for a given seed. */
export function codeSnippets(count: number, seed: number): string[] {
  const random = seededRandom(seed);
  const seen = new Set<string>();
  const out: string[] = [];
  // Duplicates are astronomically unlikely; skipping them keeps "every text unique" true by construction.
  while (out.length < count) {
    const text = snippet(random, 110 + Math.floor(random() * 300));
    if (seen.has(text)) continue;
    seen.add(text);
    out.push(text);
  }
  return out;
}

/** `count` distinct documents of `bytes` UTF-16 units or a little less, cut at a line end, built from snippets. */
export function documents(count: number, bytes: number, seed: number): string[] {
  const random = seededRandom(seed);
  const docs: string[] = [];
  for (let i = 0; i < count; i++) {
    let text = "";
    while (text.length < bytes) text += snippet(random, 110 + Math.floor(random() * 300));
    docs.push(text.slice(0, text.lastIndexOf("\n", bytes - 1) + 1));
  }
  return docs;
}

/** Mean UTF-8 size of `texts`, for the tables. */
export function meanBytes(texts: readonly string[]): number {
  let total = 0;
  for (const text of texts) total += Buffer.byteLength(text, "utf8");
  return texts.length === 0 ? 0 : total / texts.length;
}
