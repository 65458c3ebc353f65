/**
 * A bounded memo with constant-time hits and misses: two generations of Maps.
 *
 * New entries go into the young generation; when it holds `capacity / 2` entries it
 * becomes the old one and the previous old one is dropped whole. A hit in the old
 * generation is promoted. This keeps roughly the most recently used `capacity`
 * entries — like an LRU — without an LRU's per-miss eviction walk (a Map's oldest
 * key sits behind the holes earlier deletions left, so `keys().next()` gets slower
 * the longer a cache lives).
 */
export class GenerationalCache<K, V> {
  #young = new Map<K, V>();
  #old = new Map<K, V>();
  readonly #half: number;

  /** @param capacity roughly how many entries to keep; at least 2. */
  constructor(capacity: number) {
    this.#half = Math.max(1, Math.floor(capacity / 2));
  }

  /** The value stored for `key`, or undefined. */
  get(key: K): V | undefined {
    const young = this.#young.get(key);
    if (young !== undefined) return young;
    const old = this.#old.get(key);
    if (old !== undefined) this.set(key, old);
    return old;
  }

  /** Stores `value` for `key`. */
  set(key: K, value: V): void {
    if (this.#young.size >= this.#half) {
      this.#old = this.#young;
      this.#young = new Map();
    }
    this.#young.set(key, value);
  }

  /** How many entries are held (an entry in both generations counts twice). */
  get size(): number {
    return this.#young.size + this.#old.size;
  }
}

/** Memoises a function of one string argument in a {@link GenerationalCache}. */
export function memoizeString<V>(fn: (text: string) => V, capacity: number): (text: string) => V {
  const cache = new GenerationalCache<string, V>(capacity);
  return (text) => {
    let value = cache.get(text);
    if (value === undefined) {
      value = fn(text);
      cache.set(text, value);
    }
    return value;
  };
}
