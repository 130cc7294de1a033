import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyBaseLogger } from 'fastify';
import { clickId, cleanReferrer, cleanUserAgent, hashClientIp } from '../domain/click.js';
import type { Metrics } from '../metrics.js';
import type { ClickRow } from '../store/clicks.js';

/** What the resolver hands over: raw facts, stamped with the redirect time. */
export interface ClickEvent {
  linkId: string;
  userId: string | null;
  ip: string;
  userAgent: string | undefined;
  referer: string | undefined;
  at: number;
}

export interface ClickWriterOptions {
  clicks: { insertBatch(rows: readonly ClickRow[]): Promise<void> };
  metrics: Metrics;
  log: FastifyBaseLogger;
  ipHashSecret: string;
  capacity?: number;
  batchSize?: number;
  /** How long a partial batch may wait for company; one transaction per batch instead of per click. */
  flushDelayMs?: number;
}

const MAX_BACKOFF_MS = 5_000;

/**
 * The batched click writer (core.md §12.1). Redirects enqueue without ever
 * waiting; one loop drains the queue in order with one multi-row INSERT per
 * batch, retrying a failed batch with backoff so an outage delays clicks
 * instead of losing them. Only a full queue drops events, and counts them.
 */
export class ClickWriter {
  private queue: ClickEvent[] = [];
  private head = 0;
  private wake: (() => void) | null = null;
  private closing = false;
  private loop: Promise<void> | null = null;
  private readonly capacity: number;
  private readonly batchSize: number;
  private readonly flushDelayMs: number;

  constructor(private readonly opts: ClickWriterOptions) {
    this.capacity = opts.capacity ?? 50_000;
    this.batchSize = opts.batchSize ?? 500;
    this.flushDelayMs = opts.flushDelayMs ?? 50;
  }

  get pending(): number {
    return this.queue.length - this.head;
  }

  /** Never blocks; returns false when the event was dropped. */
  enqueue(event: ClickEvent): boolean {
    if (this.closing || this.pending >= this.capacity) {
      this.opts.metrics.clicksDropped.inc();
      this.opts.log.warn(`analytics: click channel full, dropping event for link ${event.linkId}`);
      return false;
    }
    this.queue.push(event);
    if (this.wake) {
      const w = this.wake;
      this.wake = null;
      w();
    }
    return true;
  }

  start(): void {
    this.loop ??= this.run();
  }

  private toRow(e: ClickEvent): ClickRow {
    return {
      id: clickId(e.at),
      link_id: e.linkId,
      user_id: e.userId,
      ip_hash: hashClientIp(this.opts.ipHashSecret, e.ip, e.at),
      user_agent: cleanUserAgent(e.userAgent),
      referrer: cleanReferrer(e.referer),
      clicked_at: e.at,
    };
  }

  private async run(): Promise<void> {
    let backoff = 100;
    for (;;) {
      if (this.pending === 0) {
        if (this.closing) return;
        await new Promise<void>((resolve) => (this.wake = resolve));
        continue;
      }
      if (this.pending < this.batchSize && !this.closing && this.flushDelayMs > 0) {
        await sleep(this.flushDelayMs);
      }
      const end = Math.min(this.head + this.batchSize, this.queue.length);
      const rows = this.queue.slice(this.head, end).map((e) => this.toRow(e));
      for (;;) {
        try {
          await this.opts.clicks.insertBatch(rows);
          this.opts.metrics.clicksRecorded.inc(rows.length);
          backoff = 100;
          break;
        } catch (e) {
          this.opts.metrics.clickErrors.inc();
          this.opts.log.error(`click write error: ${(e as Error).message}`);
          await sleep(backoff);
          backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
        }
      }
      this.head = end;
      if (this.head > 4096 && this.head * 2 > this.queue.length) {
        this.queue = this.queue.slice(this.head);
        this.head = 0;
      }
    }
  }

  /**
   * Stops accepting events and waits for the queue to drain, at most
   * `timeoutMs`. Returns false (after logging) if clicks may be lost.
   */
  async close(timeoutMs = 30_000): Promise<boolean> {
    this.closing = true;
    this.start();
    if (this.wake) {
      const w = this.wake;
      this.wake = null;
      w();
    }
    const drained = await Promise.race([this.loop!.then(() => true), sleep(timeoutMs, undefined, { ref: false }).then(() => false)]);
    if (!drained) this.opts.log.error(`click writer did not drain within ${timeoutMs} ms; ${this.pending} buffered clicks may be lost`);
    return drained;
  }
}
