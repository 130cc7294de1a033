import { Memo } from '../domain/memo.js';

/**
 * One shared copy of each string seen again. Strings copied between threads
 * arrive as fresh copies, one per click, though most are repeats (the same
 * link, browser and referring page over and over); clicks that wait for a
 * large batch keep theirs for seconds. Pooled, a waiting click with a
 * browser's user agent and a referrer takes about 70 bytes instead of 340.
 * The pool is emptied once it holds `limit` strings, so varied input cannot
 * grow it without bound; it only ever saves memory.
 */
export class StringPool {
  private readonly seen: Memo<string, string>;

  constructor(limit = 20_000) {
    this.seen = new Memo(limit);
  }

  /** `s` or an equal string handed out before. */
  take<T extends string | null | undefined>(s: T): T {
    if (typeof s !== 'string') return s;
    const known = this.seen.get(s);
    if (known !== undefined) return known as T;
    return this.seen.set(s, s) as T;
  }

  get size(): number {
    return this.seen.size;
  }
}
