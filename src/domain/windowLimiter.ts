/**
 * Fixed-window counters per client key, in memory. @fastify/rate-limit counts
 * every request in a hook; the state-link creation limit counts only requests
 * that end in a new link (and must be refunded otherwise), so the three
 * state-link limits share this small counter instead.
 *
 * Memory is bounded: ended windows are dropped as new ones start, and at most
 * `maxKeys` clients are tracked; past that the oldest-started window is
 * dropped and that client simply starts a fresh one.
 */
export interface LimitDecision {
  ok: boolean;
  /** Whole seconds until the window resets (for Retry-After), at least 1. */
  retryAfterSeconds: number;
}

interface Window {
  start: number;
  count: number;
}

export class WindowLimiter {
  private readonly windows = new Map<string, Window>();

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly now: () => number,
    private readonly maxKeys = 100_000,
  ) {}

  private current(key: string, now: number): Window | undefined {
    const w = this.windows.get(key);
    if (w && now - w.start >= this.windowMs) {
      this.windows.delete(key);
      return undefined;
    }
    return w;
  }

  private retryAfter(w: Window | undefined, now: number): number {
    if (!w) return 1;
    return Math.max(1, Math.ceil((w.start + this.windowMs - now) / 1000));
  }

  /** Counts one event when under the limit; refuses (counting nothing) otherwise. */
  take(key: string): LimitDecision {
    const now = this.now();
    let w = this.current(key, now);
    if (w && w.count >= this.limit) return { ok: false, retryAfterSeconds: this.retryAfter(w, now) };
    if (!w) {
      this.makeRoom(now);
      w = { start: now, count: 0 };
      this.windows.set(key, w);
    }
    w.count++;
    return { ok: true, retryAfterSeconds: this.retryAfter(w, now) };
  }

  /** Gives back one event taken in the current window (the work it paid for did not happen). */
  refund(key: string): void {
    const w = this.current(key, this.now());
    if (w && w.count > 0) w.count--;
  }

  get size(): number {
    return this.windows.size;
  }

  /**
   * A key is inserted when its window starts and never moved otherwise, so the
   * map's insertion order is window-start order: ended windows sit at the
   * front. Dropping from the front until a live window (and room) is reached
   * costs only the entries it removes.
   */
  private makeRoom(now: number): void {
    for (const [k, w] of this.windows) {
      if (this.windows.size < this.maxKeys && now - w.start < this.windowMs) break;
      this.windows.delete(k);
    }
  }
}
