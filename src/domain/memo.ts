/**
 * Values remembered by key that are all forgotten at once when `limit` of them are held: memory
 * stays bounded without the bookkeeping on every lookup that forgetting the oldest one would
 * take, and for what is remembered here (repeated names, agents, templates, statement results)
 * a full memo is rare. The one rule for every bounded memo of the server.
 */
export class Memo<K, V> {
  private readonly values = new Map<K, V>();

  constructor(private readonly limit: number) {}

  get(key: K): V | undefined {
    return this.values.get(key);
  }

  /** Remembers `value` under `key`, first forgetting everything if the memo is full; returns `value`. */
  set(key: K, value: V): V {
    if (this.values.size >= this.limit) this.values.clear();
    this.values.set(key, value);
    return value;
  }

  clear(): void {
    this.values.clear();
  }

  get size(): number {
    return this.values.size;
  }
}
