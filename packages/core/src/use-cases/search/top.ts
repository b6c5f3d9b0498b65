/**
 * The first `size` items in `compare` order among those offered, holding at most `size` of them: a
 * page (plus one, to know whether there is more) is cut from any number of matches without sorting, or
 * keeping, all of them. Inserting costs a binary search and a splice of at most `size` entries.
 */
export class FirstInOrder<T> {
  readonly #items: T[] = [];

  constructor(
    readonly size: number,
    readonly compare: (a: T, b: T) => number,
  ) {}

  offer(item: T): void {
    const items = this.#items;
    if (items.length === this.size && this.compare(item, items.at(-1)!) >= 0) return;
    let low = 0;
    let high = items.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.compare(items[middle]!, item) <= 0) low = middle + 1;
      else high = middle;
    }
    items.splice(low, 0, item);
    if (items.length > this.size) items.pop();
  }

  get items(): readonly T[] {
    return this.#items;
  }
}
