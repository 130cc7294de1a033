import type { FastifyBaseLogger } from 'fastify';
import { afterFailure, attemptError, type RetryPolicy } from '../domain/outbox.js';
import type { Metrics } from '../metrics.js';
import type { Store } from '../store/index.js';
import { targetKey, type OutboxChannel, type OutboxRow, type OutboxTarget } from '../store/outbox.js';
import type { Executor } from '../store/types.js';
import type { PeriodicJob } from './scheduler.js';

/**
 * The dispatcher of the outbox (docs/notifications.md#delivery): it claims
 * due rows and hands each to its channel, and records the attempt with the
 * row's next state in one transaction: delivered, tried again after the
 * channel's backoff, or failed once the attempts are spent. Requests never
 * wait for it.
 *
 * Each target (a mail's recipient, a webhook's endpoint) is a lane of its
 * own: its rows are attempted one at a time, oldest first, and lanes run side
 * by side, `concurrency` at a time, so an endpoint that never answers holds
 * back nothing but its own deliveries. A lane whose attempt fails stops for
 * the rest of the run and leaves its other rows for the next one: a failing
 * endpoint costs a run one attempt (at most one attempt timeout), not one per
 * row waiting. Every attempt is bounded by its channel's timeout.
 */

/** Leased job names: each channel delivers under a lease of its own, so a slow webhook never holds back mail. */
export const OUTBOX_JOBS: Record<OutboxChannel, string> = { mail: 'outbox-mail', webhook: 'outbox-webhooks' };

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
  /**
   * How long one try may take. The channel bounds its own requests; past this
   * (and a second's grace) the dispatcher gives up on the try and counts it failed,
   * so nothing a channel waits on can hold a lane for longer. Default a minute.
   */
  attemptTimeoutMs?: number;
  /** One try. A throw counts as a failed attempt with the error's message. */
  deliver(row: OutboxRow, signal: AbortSignal): Promise<Delivery>;
  /** Runs in the transaction that gives the row up for good. */
  onGiveUp?(row: OutboxRow, tx: Executor): Promise<void>;
  /** Closes the channel's connections (an HTTP agent, an SMTP transport) at shutdown. */
  close?(): Promise<void>;
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
  /** Rows a lane claims at a time. */
  batchSize?: number;
  /** Lanes (targets) served at once. */
  concurrency?: number;
  /** Rows attempted per run at most; the rest wait for the next run. */
  maxPerRun?: number;
  /** How long a claim holds a row from other dispatchers; longer than a lane's batch of attempts. */
  claimMs?: number;
  /** While lanes are busy, how often a run looks for targets that have come due since. */
  pollMs?: number;
}

/** Beyond a channel's own timeout, before the dispatcher gives up on a try. */
const ATTEMPT_GRACE_MS = 1_000;
const DEFAULT_ATTEMPT_TIMEOUT_MS = 60_000;

export class OutboxDispatcher {
  private readonly handlers = new Map<OutboxChannel, ChannelHandler>();

  private readonly batchSize: number;
  private readonly claimMs: number;

  constructor(private readonly opts: DispatcherOptions) {
    for (const c of opts.channels) this.handlers.set(c.channel, c);
    this.batchSize = opts.batchSize ?? 5;
    // Twice what a lane's batch can take, so a claim never runs out under a lane still at work.
    const longest = Math.max(0, ...opts.channels.map((c) => (c.attemptTimeoutMs ?? DEFAULT_ATTEMPT_TIMEOUT_MS) + ATTEMPT_GRACE_MS));
    this.claimMs = opts.claimMs ?? Math.max(5 * 60_000, 2 * this.batchSize * longest);
  }

  /** Closes every channel's connections; the dispatcher delivers nothing after it. */
  async close(): Promise<void> {
    await Promise.all([...this.handlers.values()].map((h) => h.close?.()));
  }

  /**
   * Attempts everything due now, lane by lane, until nothing is due (but the
   * lanes that failed in this run), the run's cap is reached or `signal` aborts.
   */
  async drain(signal: AbortSignal = new AbortController().signal): Promise<DrainSummary> {
    const summary: DrainSummary = { delivered: 0, retried: 0, failed: 0, skipped: 0, deferred: 0 };
    const { store } = this.opts;
    const channels = [...this.handlers.keys()];
    const concurrency = this.opts.concurrency ?? 8;
    const run: Run = { signal, summary, budget: this.opts.maxPerRun ?? 500, stopped: new Set() };
    const lanes = new Map<string, Promise<void>>();
    let laneEnded: () => void = () => {};
    while (channels.length > 0 && !signal.aborted && run.budget > 0) {
      const wake = new Promise<void>((resolve) => (laneEnded = resolve));
      if (lanes.size < concurrency) {
        const except = new Set([...lanes.keys(), ...run.stopped]);
        for (const target of await store.outbox.dueTargets(concurrency - lanes.size, { channels, except })) {
          const key = targetKey(target);
          lanes.set(
            key,
            this.lane(target, run).finally(() => {
              lanes.delete(key);
              laneEnded();
            }),
          );
        }
      }
      if (lanes.size === 0) break;
      // A lane ending may free a slot; meanwhile look again now and then for targets that came due.
      await Promise.race([wake, delay(this.opts.pollMs ?? 250, signal)]);
    }
    await Promise.all(lanes.values());
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

  /** One target's due rows, oldest first, one at a time, until none is due, one fails, the budget is spent or the run ends. */
  private async lane(target: OutboxTarget, run: Run): Promise<void> {
    const { store } = this.opts;
    try {
      for (let first = true; !run.signal.aborted && run.budget > 0; first = false) {
        const rows = await store.outbox.claimDue(Math.min(this.batchSize, run.budget), this.claimMs, store.now(), { target });
        // Nothing to take at all (another dispatcher took it first): the run does not come back to it.
        if (rows.length === 0 && first) run.stopped.add(targetKey(target));
        if (rows.length === 0) return;
        run.budget -= rows.length;
        for (let i = 0; i < rows.length; i++) {
          if (run.signal.aborted) return await store.outbox.release(rows.slice(i).map((r) => r.id));
          if ((await this.attempt(rows[i]!, run.signal, run.summary)) === 'failed') {
            run.stopped.add(targetKey(target));
            return await store.outbox.release(rows.slice(i + 1).map((r) => r.id));
          }
        }
      }
    } catch (e) {
      // Claims not given back expire by themselves; the target is tried again on a later run.
      run.stopped.add(targetKey(target));
      this.opts.log.warn(`${target.channel} lane ${target.id}: ${(e as Error).message}`);
    }
  }

  /** One try, bounded by the channel's timeout whatever the channel does. */
  private async tryOnce(handler: ChannelHandler, row: OutboxRow, signal: AbortSignal): Promise<Delivery> {
    const limit = (handler.attemptTimeoutMs ?? DEFAULT_ATTEMPT_TIMEOUT_MS) + ATTEMPT_GRACE_MS;
    const timer = new AbortController();
    const handle = setTimeout(() => timer.abort(), limit);
    try {
      return await Promise.race([
        handler.deliver(row, AbortSignal.any([signal, timer.signal])),
        new Promise<Delivery>((resolve) =>
          timer.signal.addEventListener('abort', () =>
            resolve({ kind: 'failed', statusCode: null, error: `timed out after ${Math.round(limit / 1000)}s` }),
          ),
        ),
      ]);
    } finally {
      clearTimeout(handle);
    }
  }

  /** Attempts one claimed row and records what came of it; answers the outcome's kind. */
  private async attempt(row: OutboxRow, signal: AbortSignal, summary: DrainSummary): Promise<Delivery['kind']> {
    const handler = this.handlers.get(row.channel)!;
    const { store } = this.opts;
    const at = store.now();
    const started = performance.now();
    let outcome: Delivery;
    try {
      outcome = await this.tryOnce(handler, row, signal);
    } catch (e) {
      outcome = { kind: 'failed', statusCode: null, error: (e as Error).message || 'delivery failed' };
    }
    const durationMs = performance.now() - started;
    // Cut short by shutdown: nothing is recorded and the row is simply due again.
    if (signal.aborted && outcome.kind !== 'sent') {
      await store.transaction((tx) => store.outbox.settle(row.id, null, { status: 'pending', nextAttemptAt: row.nextAttemptAt }, tx));
      return 'failed';
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
          return 'sent';
        }
        case 'skipped': {
          const settle = outcome.settle;
          await store.transaction(async (tx) => {
            await store.outbox.settle(row.id, null, { status: 'skipped', at: store.now() }, tx);
            await settle?.(tx);
          });
          summary.skipped++;
          count('skipped');
          return 'skipped';
        }
        case 'deferred': {
          const until = outcome.until;
          await store.transaction((tx) => store.outbox.settle(row.id, null, { status: 'pending', nextAttemptAt: until }, tx));
          summary.deferred++;
          return 'deferred';
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
          return 'failed';
        }
      }
    } catch (e) {
      // The claim runs out and the row is tried again; an attempt that was sent may be sent twice (at least once).
      this.opts.log.warn(`${row.channel} delivery ${row.id}: could not record the attempt: ${(e as Error).message}`);
      return 'failed';
    }
  }
}

interface Run {
  signal: AbortSignal;
  summary: DrainSummary;
  /** Rows this run may still claim. */
  budget: number;
  /** Lanes that failed in this run: their other rows wait for the next one. */
  stopped: Set<string>;
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const t = setTimeout(done, ms);
    signal.addEventListener('abort', done);
  });
}

/** A channel's leased job: one replica delivers its rows at a time, every tick. */
export function outboxJob(channel: OutboxChannel, dispatcher: OutboxDispatcher): PeriodicJob {
  return {
    name: OUTBOX_JOBS[channel],
    intervalMs: 1_000,
    runAtStart: true,
    async run(signal) {
      await dispatcher.drain(signal);
    },
    close: () => dispatcher.close(),
  };
}
