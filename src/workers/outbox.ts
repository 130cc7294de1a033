import type { FastifyBaseLogger } from 'fastify';
import { afterFailure, attemptError, type RetryPolicy } from '../domain/outbox.js';
import type { Metrics } from '../metrics.js';
import type { Store } from '../store/index.js';
import type { OutboxChannel, OutboxRow } from '../store/outbox.js';
import type { Executor } from '../store/types.js';
import type { PeriodicJob } from './scheduler.js';

/**
 * The one dispatcher of the outbox (docs/notifications.md#delivery), shared by
 * mail and webhooks: under the `outbox` job lease it claims due rows, hands
 * each to its channel, and records the attempt with the row's next state in
 * one transaction: delivered, tried again after the channel's backoff, or
 * failed once the attempts are spent. Requests never wait for it.
 */

export const OUTBOX_JOB = 'outbox';

/** What one try of a delivery came to. */
export type Delivery =
  /** Accepted by the other side; `settle` runs in the transaction that marks the row delivered. */
  | { kind: 'sent'; statusCode: number | null; settle?: (tx: Executor) => Promise<void> }
  | { kind: 'failed'; statusCode: number | null; error: string }
  /** Nothing to send any more (folded into another mail, mail turned off); no attempt is counted. */
  | { kind: 'skipped'; settle?: (tx: Executor) => Promise<void> }
  /** Not yet: try again at `until`; no attempt is counted. */
  | { kind: 'deferred'; until: number };

export interface ChannelHandler {
  channel: OutboxChannel;
  policy: RetryPolicy;
  /** One try. A throw counts as a failed attempt with the error's message. */
  deliver(row: OutboxRow, signal: AbortSignal): Promise<Delivery>;
  /** Runs in the transaction that gives the row up for good. */
  onGiveUp?(row: OutboxRow, tx: Executor): Promise<void>;
}

export interface DrainSummary {
  delivered: number;
  retried: number;
  failed: number;
  skipped: number;
  deferred: number;
}

export interface DispatcherOptions {
  store: Pick<Store, 'outbox' | 'transaction' | 'now'>;
  channels: readonly ChannelHandler[];
  log: Pick<FastifyBaseLogger, 'info' | 'warn'>;
  metrics?: Metrics;
  /** Rows claimed per round. */
  batchSize?: number;
  /** Deliveries in flight at once; one target (recipient, endpoint) is always served in order. */
  concurrency?: number;
  /** Rows attempted per run at most; the rest wait for the next run. */
  maxPerRun?: number;
  /** How long a claim holds a row from other dispatchers; longer than any one attempt. */
  claimMs?: number;
}

export class OutboxDispatcher {
  private readonly handlers = new Map<OutboxChannel, ChannelHandler>();

  constructor(private readonly opts: DispatcherOptions) {
    for (const c of opts.channels) this.handlers.set(c.channel, c);
  }

  /** Attempts everything due now, round by round, until nothing is due, the run's cap is reached or `signal` aborts. */
  async drain(signal: AbortSignal = new AbortController().signal): Promise<DrainSummary> {
    const summary: DrainSummary = { delivered: 0, retried: 0, failed: 0, skipped: 0, deferred: 0 };
    const { store } = this.opts;
    const max = this.opts.maxPerRun ?? 500;
    let seen = 0;
    while (!signal.aborted && seen < max) {
      const rows = (await store.outbox.claimDue(Math.min(this.opts.batchSize ?? 20, max - seen), this.opts.claimMs ?? 5 * 60_000)).filter(
        (r) => this.handlers.has(r.channel),
      );
      if (rows.length === 0) break;
      seen += rows.length;
      await this.inGroups(rows, async (row) => {
        if (!signal.aborted) await this.attempt(row, signal, summary);
      });
    }
    await this.updateDepth();
    return summary;
  }

  /** The outbox depth gauge: pending rows per channel. */
  async updateDepth(): Promise<void> {
    const m = this.opts.metrics;
    if (!m) return;
    try {
      const depth = await this.opts.store.outbox.depth();
      for (const [channel, n] of Object.entries(depth)) m.outboxDepth.set({ channel }, n);
    } catch (e) {
      this.opts.log.warn(`outbox depth: ${(e as Error).message}`);
    }
  }

  /** Rows of one target run one after another; targets run side by side, `concurrency` at a time. */
  private async inGroups(rows: readonly OutboxRow[], work: (row: OutboxRow) => Promise<void>): Promise<void> {
    const groups = new Map<string, OutboxRow[]>();
    for (const r of rows) {
      const key = `${r.channel}:${r.userId ?? r.webhookId ?? ''}`;
      groups.set(key, [...(groups.get(key) ?? []), r]);
    }
    const queue = [...groups.values()];
    const worker = async () => {
      for (let g = queue.shift(); g; g = queue.shift()) for (const row of g) await work(row);
    };
    await Promise.all(Array.from({ length: Math.min(this.opts.concurrency ?? 4, queue.length) }, worker));
  }

  private async attempt(row: OutboxRow, signal: AbortSignal, summary: DrainSummary): Promise<void> {
    const handler = this.handlers.get(row.channel)!;
    const { store } = this.opts;
    const at = store.now();
    const started = performance.now();
    let outcome: Delivery;
    try {
      outcome = await handler.deliver(row, signal);
    } catch (e) {
      outcome = { kind: 'failed', statusCode: null, error: (e as Error).message || 'delivery failed' };
    }
    const durationMs = performance.now() - started;
    // Cut short by shutdown: nothing is recorded and the row is simply due again.
    if (signal.aborted && outcome.kind !== 'sent') {
      await store.transaction((tx) => store.outbox.settle(row.id, null, { status: 'pending', nextAttemptAt: row.nextAttemptAt }, tx));
      return;
    }
    const n = row.attempts + 1;
    const count = (outcome: 'delivered' | 'retry' | 'failed' | 'skipped') =>
      this.opts.metrics?.outboxDeliveries.inc({ channel: row.channel, outcome });
    try {
      switch (outcome.kind) {
        case 'sent': {
          const settle = outcome.settle;
          const attempt = { attempt: n, at, durationMs, statusCode: outcome.statusCode, error: null };
          await store.transaction(async (tx) => {
            await store.outbox.settle(row.id, attempt, { status: 'delivered', at: store.now() }, tx);
            await settle?.(tx);
          });
          summary.delivered++;
          count('delivered');
          return;
        }
        case 'skipped': {
          const settle = outcome.settle;
          await store.transaction(async (tx) => {
            await store.outbox.settle(row.id, null, { status: 'skipped', at: store.now() }, tx);
            await settle?.(tx);
          });
          summary.skipped++;
          count('skipped');
          return;
        }
        case 'deferred': {
          const until = outcome.until;
          await store.transaction((tx) => store.outbox.settle(row.id, null, { status: 'pending', nextAttemptAt: until }, tx));
          summary.deferred++;
          return;
        }
        case 'failed': {
          const error = attemptError(outcome.error);
          const attempt = { attempt: n, at, durationMs, statusCode: outcome.statusCode, error };
          const next = afterFailure(n, store.now(), handler.policy);
          if (next.status === 'pending') {
            await store.transaction((tx) => store.outbox.settle(row.id, attempt, { status: 'pending', nextAttemptAt: next.retryAt }, tx));
            summary.retried++;
            count('retry');
          } else {
            await store.transaction(async (tx) => {
              await store.outbox.settle(row.id, attempt, { status: 'failed', at: store.now() }, tx);
              await handler.onGiveUp?.(row, tx);
            });
            summary.failed++;
            count('failed');
            this.opts.log.warn(`${row.channel} delivery ${row.id} (${row.eventType}) failed for good after ${n} attempts: ${error}`);
          }
          return;
        }
      }
    } catch (e) {
      // The claim runs out and the row is tried again; an attempt that was sent may be sent twice (at least once).
      this.opts.log.warn(`${row.channel} delivery ${row.id}: could not record the attempt: ${(e as Error).message}`);
    }
  }
}

/** The leased `outbox` job: one replica delivers at a time, every tick. */
export function outboxJob(dispatcher: OutboxDispatcher): PeriodicJob {
  return {
    name: OUTBOX_JOB,
    intervalMs: 1_000,
    runAtStart: true,
    async run(signal) {
      await dispatcher.drain(signal);
    },
  };
}
