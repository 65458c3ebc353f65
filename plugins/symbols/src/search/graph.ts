/**
 * The reference graph over the index, and personalised PageRank on it — the structure
 * a repository map ranks by: file A links to file B when A's text names something B
 * defines. Seeded by the files a goal's words match (and the host's anchors),
 * PageRank moves weight to the definitions those files lean on: the class the
 * matching tests exercise, the module every matching handler calls into.
 *
 * Edges come from the identifiers of each file's term bag (hashes of names as written)
 * against the names the index defines. A name defined in many files (`get`, `run`,
 * `value`) says little about which one is meant, so it is spread over its definers and
 * ignored past {@link MAX_DEFINERS}; `_private` names weigh little, long compound names
 * (`createSourceFile`) more.
 */
import { identHash } from "../extract/bag.js";
import type { NameTable } from "./name-table.js";

/** A name defined in more files than this links nowhere. */
export const MAX_DEFINERS = 5;

/** PageRank's damping: the chance of following a link rather than jumping back to a seed. */
export const DAMPING = 0.85;

/** Power iterations at most; fewer when the ranks settle (an L1 change under {@link TOLERANCE}). */
const ITERATIONS = 30;
const TOLERANCE = 1e-6;

/** Files as nodes, links as a compressed sparse row matrix whose rows sum to 1 (or 0 for a file linking nowhere). */
export interface ReferenceGraph {
  /** Node index → file id. */
  readonly fileIds: Int32Array;
  /** File id → node index. */
  readonly nodes: ReadonlyMap<number, number>;
  /** Row `i`'s links are `targets[rowStart[i] .. rowStart[i + 1])`. */
  readonly rowStart: Int32Array;
  readonly targets: Int32Array;
  /** Each link's share of its row's weight. */
  readonly shares: Float64Array;
  /** The table's version it was built from. */
  readonly version: number;
}

/** How much a reference to `name` counts: long compound names say more, `_private` ones less. */
export function nameWeight(name: string): number {
  let weight = 1;
  if (name.startsWith("_")) weight *= 0.1;
  if (name.length >= 8 && /[a-z][A-Z]|[a-zA-Z]_[a-zA-Z]/.test(name)) weight *= 2;
  return weight;
}

/** Builds the graph of `table` as it is now. */
export function buildGraph(table: NameTable): ReferenceGraph {
  const fileIds: number[] = [];
  const nodes = new Map<number, number>();
  for (const file of table.files()) {
    nodes.set(file.id, fileIds.length);
    fileIds.push(file.id);
  }
  // Defined name (hash) → its definers and its weight.
  const definers = new Map<number, { files: number[]; weight: number }>();
  for (let node = 0; node < fileIds.length; node++) {
    const seen = new Set<string>();
    for (const entry of table.entriesOf(fileIds[node] as number)) {
      const name = entry.name;
      if (name.length < 3 || seen.has(name)) continue;
      seen.add(name);
      const hash = identHash(name);
      const known = definers.get(hash);
      if (known === undefined) definers.set(hash, { files: [node], weight: nameWeight(name) });
      else if (known.files.length <= MAX_DEFINERS) known.files.push(node);
    }
  }
  const rowStart = new Int32Array(fileIds.length + 1);
  const targets: number[] = [];
  const shares: number[] = [];
  const row = new Map<number, number>();
  for (let node = 0; node < fileIds.length; node++) {
    row.clear();
    const idents = table.bag(fileIds[node] as number).idents;
    for (let i = 0; i < idents.length; i++) {
      const defined = definers.get(idents[i] as number);
      if (defined === undefined || defined.files.length > MAX_DEFINERS) continue;
      const each = defined.weight / defined.files.length;
      for (const target of defined.files) if (target !== node) row.set(target, (row.get(target) ?? 0) + each);
    }
    let sum = 0;
    for (const weight of row.values()) sum += weight;
    // Sorted targets: the same table always makes the same graph, whatever the map's order.
    for (const target of [...row.keys()].sort((a, b) => a - b)) {
      targets.push(target);
      shares.push((row.get(target) as number) / sum);
    }
    rowStart[node + 1] = targets.length;
  }
  return {
    fileIds: Int32Array.from(fileIds),
    nodes,
    rowStart,
    targets: Int32Array.from(targets),
    shares: Float64Array.from(shares),
    version: table.version,
  };
}

/** The graph of a table, rebuilt only when the table has changed since. */
export class GraphCache {
  private graph: ReferenceGraph | undefined;
  private table: NameTable | undefined;

  /** The graph of `table` now. */
  of(table: NameTable): ReferenceGraph {
    if (this.graph === undefined || this.table !== table || this.graph.version !== table.version) {
      this.graph = buildGraph(table);
      this.table = table;
    }
    return this.graph;
  }
}

/**
 * Personalised PageRank: the stationary distribution of a walk that follows a link
 * with probability `damping` and otherwise jumps to a seed (chosen by seed weight); a
 * file linking nowhere jumps to a seed too. Seeds are node → weight (any scale, ≥ 0).
 * Returns a rank per node summing to 1, or all zeros with no positive seed.
 */
export function personalizedPageRank(
  graph: ReferenceGraph,
  seeds: ReadonlyMap<number, number>,
  damping = DAMPING,
): Float64Array {
  const size = graph.fileIds.length;
  const restart = new Float64Array(size);
  let total = 0;
  for (const [node, weight] of seeds) {
    if (node < 0 || node >= size || !(weight > 0)) continue;
    restart[node] = (restart[node] as number) + weight;
    total += weight;
  }
  if (total === 0) return new Float64Array(size);
  for (let i = 0; i < size; i++) restart[i] = (restart[i] as number) / total;
  let rank = Float64Array.from(restart);
  let next = new Float64Array(size);
  const { rowStart, targets, shares } = graph;
  for (let iteration = 0; iteration < ITERATIONS; iteration++) {
    next.fill(0);
    let stranded = 0;
    for (let node = 0; node < size; node++) {
      const mass = rank[node] as number;
      if (mass === 0) continue;
      const start = rowStart[node] as number;
      const end = rowStart[node + 1] as number;
      if (start === end) {
        stranded += mass;
        continue;
      }
      for (let link = start; link < end; link++) {
        const target = targets[link] as number;
        next[target] = (next[target] as number) + damping * mass * (shares[link] as number);
      }
    }
    // The jump: 1 - damping of all mass, and all of the stranded mass, goes back to the seeds.
    const jump = 1 - damping + damping * stranded;
    let change = 0;
    for (let node = 0; node < size; node++) {
      const value = (next[node] as number) + jump * (restart[node] as number);
      next[node] = value;
      change += Math.abs(value - (rank[node] as number));
    }
    [rank, next] = [next, rank];
    if (change < TOLERANCE) break;
  }
  return rank;
}
