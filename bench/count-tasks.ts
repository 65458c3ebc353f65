/**
 * The counting workloads the token benchmarks time (tokens.bench.ts for o200k_base,
 * token-families.ts for the other tokenizers): the same tasks on every side, so the
 * sides differ only in the counter.
 */

/** A side's counting function: the tokens in one text. */
export type Count = (text: string) => number;

/** Counts `batch` texts per call, continuing round the pool where the last call stopped. */
export function cycling(count: Count, pool: readonly string[], batch: number): () => number {
  let at = 0;
  return () => {
    let total = 0;
    for (let i = 0; i < batch; i++) {
      total += count(pool[at] as string);
      at = (at + 1) % pool.length;
    }
    return total;
  };
}

/** Counts one document per call, each made unique by a first line no other call used: no cache can answer it. */
export function uniqueDocuments(count: Count, docs: readonly string[]): () => number {
  let serial = 0;
  return () => {
    serial++;
    return count(`// revision ${serial}\n${docs[serial % docs.length] as string}`);
  };
}
