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

/**
 * Power iterations at most; fewer when the ranks settle (an L1 change under
 * {@link TOLERANCE}). Twelve steps leave 0.85^12 ≈ 14% of the mass on walks longer than
 * twelve links, whose order among the best-ranked files hardly moves: a ranking needs
 * the order, not six digits, and each step costs a pass over every link.
 */
const ITERATIONS = 12;
const TOLERANCE = 1e-4;

/** Files as nodes, links as a compressed sparse row matrix whose rows sum to 1 (or 0 for a file linking nowhere). */
export interface ReferenceGraph {
  /** Node index → file id; nodes are in path order. */
  readonly fileIds: Int32Array;
  /** File id → node index. */
  readonly nodes: ReadonlyMap<number, number>;
  /** Row `i`'s links are `targets[rowStart[i] .. rowStart[i + 1])`. */
  readonly rowStart: Int32Array;
  readonly targets: Int32Array;
  /** Each link's share of its row's weight. */
  readonly shares: Float64Array;
  /** The links reversed: node `i` is linked from `sources[sourceStart[i] .. sourceStart[i + 1])`, in node (path) order. */
  readonly sourceStart: Int32Array;
  readonly sources: Int32Array;
  /** Each defined name (by {@link identHash}, at most {@link MAX_DEFINERS} definers): the nodes defining it and the nodes whose text uses it, in node order. */
  readonly names: ReadonlyMap<number, { readonly files: readonly number[]; readonly users: readonly number[] }>;
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
  // Nodes in path order: the same files make the same graph however they were indexed, and a
  // node's links (and the links to it) come in path order.
  const files = [...table.files()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const fileIds = files.map((file) => file.id);
  const nodes = new Map(fileIds.map((id, node) => [id, node]));
  // Defined name (hash) → its definers and its weight.
  const definers = new Map<number, { files: number[]; users: number[]; weight: number }>();
  for (let node = 0; node < fileIds.length; node++) {
    const seen = new Set<string>();
    for (const entry of table.entriesOf(fileIds[node] as number)) {
      const name = entry.name;
      if (name.length < 3 || seen.has(name)) continue;
      seen.add(name);
      const hash = identHash(name);
      const known = definers.get(hash);
      if (known === undefined) definers.set(hash, { files: [node], users: [], weight: nameWeight(name) });
      else if (known.files.length <= MAX_DEFINERS) known.files.push(node);
    }
  }
  const rowStart = new Int32Array(fileIds.length + 1);
  const targets: number[] = [];
  const shares: number[] = [];
  // One row at a time: weights by target in a dense scratch array, the targets touched listed.
  const weights = new Float64Array(fileIds.length);
  const touched: number[] = [];
  for (let node = 0; node < fileIds.length; node++) {
    const idents = table.bag(fileIds[node] as number).idents;
    for (let i = 0; i < idents.length; i++) {
      const defined = definers.get(idents[i] as number);
      if (defined === undefined || defined.files.length > MAX_DEFINERS) continue;
      defined.users.push(node);
      const each = defined.weight / defined.files.length;
      for (const target of defined.files) {
        if (target === node) continue;
        if (weights[target] === 0) touched.push(target);
        weights[target] = (weights[target] as number) + each;
      }
    }
    let sum = 0;
    for (const target of touched) sum += weights[target] as number;
    // Sorted targets: the same table always makes the same graph.
    touched.sort((a, b) => a - b);
    for (const target of touched) {
      targets.push(target);
      shares.push((weights[target] as number) / sum);
      weights[target] = 0;
    }
    touched.length = 0;
    rowStart[node + 1] = targets.length;
  }
  const { sourceStart, sources } = reverse(rowStart, targets);
  const names = new Map<number, { files: number[]; users: number[] }>();
  for (const [hash, { files: definedIn, users }] of definers) {
    if (definedIn.length <= MAX_DEFINERS) names.set(hash, { files: definedIn, users });
  }
  return {
    fileIds: Int32Array.from(fileIds),
    nodes,
    rowStart,
    targets: Int32Array.from(targets),
    shares: Float64Array.from(shares),
    sourceStart,
    sources,
    names,
    version: table.version,
  };
}

/** The transpose of a CSR link list: for each node, the nodes linking to it, in ascending order. */
export function reverse(
  rowStart: Int32Array,
  targets: ArrayLike<number>,
): { sourceStart: Int32Array; sources: Int32Array } {
  const size = rowStart.length - 1;
  const sourceStart = new Int32Array(size + 1);
  for (let link = 0; link < targets.length; link++) {
    const at = (targets[link] as number) + 1;
    sourceStart[at] = (sourceStart[at] as number) + 1;
  }
  for (let node = 0; node < size; node++)
    sourceStart[node + 1] = (sourceStart[node + 1] as number) + (sourceStart[node] as number);
  const sources = new Int32Array(targets.length);
  const fill = sourceStart.slice(0, size);
  for (let node = 0; node < size; node++) {
    for (let link = rowStart[node] as number; link < (rowStart[node + 1] as number); link++) {
      const target = targets[link] as number;
      sources[fill[target] as number] = node;
      fill[target] = (fill[target] as number) + 1;
    }
  }
  return { sourceStart, sources };
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
