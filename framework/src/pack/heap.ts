/**
 * A binary heap: the packer pops candidates best-first without sorting the whole
 * pool, so its work grows with what fits the budget, not with the candidate count.
 */

/** A min-heap under `before` (an item that comes first pops first). */
export class Heap<T> {
  readonly #items: T[];
  readonly #before: (a: T, b: T) => boolean;

  /** Heapifies `items` in O(n); the array is taken over, not copied. */
  constructor(items: T[], before: (a: T, b: T) => boolean) {
    this.#items = items;
    this.#before = before;
    for (let i = (items.length >> 1) - 1; i >= 0; i--) this.#down(i);
  }

  /** How many items are left. */
  get size(): number {
    return this.#items.length;
  }

  /** Removes and returns the first item, or undefined when empty. */
  pop(): T | undefined {
    const items = this.#items;
    const top = items[0];
    const last = items.pop();
    if (items.length > 0 && last !== undefined) {
      items[0] = last;
      this.#down(0);
    }
    return top;
  }

  /** Adds an item. */
  push(item: T): void {
    const items = this.#items;
    items.push(item);
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.#before(items[i] as T, items[parent] as T)) return;
      [items[i], items[parent]] = [items[parent] as T, items[i] as T];
      i = parent;
    }
  }

  /** Removes and returns every item left, in no particular order. */
  drain(): T[] {
    return this.#items.splice(0);
  }

  #down(index: number): void {
    const items = this.#items;
    const n = items.length;
    let i = index;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let best = i;
      if (left < n && this.#before(items[left] as T, items[best] as T)) best = left;
      if (right < n && this.#before(items[right] as T, items[best] as T)) best = right;
      if (best === i) return;
      [items[i], items[best]] = [items[best] as T, items[i] as T];
      i = best;
    }
  }
}
