import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Metrics } from '../metrics.js';
import type { LeaseStore } from '../store/leases.js';
import type { Clock } from '../store/types.js';

export interface PeriodicJob {
  /** Lease name, e.g. `health-checker`, `click-pruner`, `state-link-sweep`, `session-sweep`, `sqlite-backup`. */
  name: string;
  intervalMs: number;
  /**
   * Run on this process's first tick even if another replica ran it recently,
   * when this process wins the lease on that tick. A replica that takes the
   * lease over later follows the shared schedule instead.
   */
  runAtStart?: boolean;
  run(signal: AbortSignal): Promise<void>;
  /** Frees what the job keeps open between runs (outbound connections), once it will not run again. */
  close?(): Promise<void>;
}

export interface SchedulerOptions {
  leases: LeaseStore;
  log: FastifyBaseLogger;
  now: Clock;
  /** How often leases are renewed and due jobs started. */
  tickMs?: number;
  /** A lease outlives a few ticks, so a crashed holder is replaced once it expires. */
  leaseTtlMs?: number;
  holder?: string;
  metrics?: Metrics;
}

/**
 * Runs periodic jobs on exactly one replica at a time (docs/server.md#background-jobs-and-leases): each
 * tick renews this process's leases; a held job runs when it has never run or
 * its interval has passed since it last ran anywhere, then stamps the run.
 */
export class JobScheduler {
  readonly holder: string;
  private readonly jobs: PeriodicJob[] = [];
  private readonly running = new Map<string, Promise<void>>();
  /** Jobs whose first tick has passed, whether or not this process won the lease on it. */
  private readonly ticked = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private ticking: Promise<void> | null = null;
  private readonly abort = new AbortController();
  private readonly tickMs: number;
  private readonly leaseTtlMs: number;

  constructor(private readonly opts: SchedulerOptions) {
    this.holder = opts.holder ?? randomUUID();
    this.tickMs = opts.tickMs ?? 20_000;
    this.leaseTtlMs = opts.leaseTtlMs ?? Math.max(3 * this.tickMs, 1_000);
  }

  add(job: PeriodicJob): void {
    this.jobs.push(job);
  }

  start(): void {
    if (this.timer || this.jobs.length === 0) return;
    const tick = () => {
      this.ticking = this.tick().finally(() => (this.ticking = null));
    };
    tick();
    this.timer = setInterval(() => {
      if (!this.ticking) tick();
    }, this.tickMs);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    for (const job of this.jobs) {
      try {
        const held = await this.opts.leases.acquire(job.name, this.holder, this.leaseTtlMs);
        this.opts.metrics?.jobLeaseHeld.set({ job: job.name }, held ? 1 : 0);
        // Only the replica that wins on its first tick runs a job "at start": otherwise every
        // replica taking the lease over would run it once more, ahead of the shared schedule.
        const first = job.runAtStart === true && !this.ticked.has(job.name);
        this.ticked.add(job.name);
        if (!held || this.running.has(job.name) || this.abort.signal.aborted) continue;
        const last = await this.opts.leases.lastRunAt(job.name);
        const now = this.opts.now();
        if (!first && last !== null && now - last < job.intervalMs) continue;
        this.running.set(job.name, this.runJob(job, now));
      } catch (e) {
        this.opts.log.warn(`job ${job.name}: lease check failed: ${(e as Error).message}`);
      }
    }
  }

  private async runJob(job: PeriodicJob, startedAt: number): Promise<void> {
    const m = this.opts.metrics;
    try {
      await job.run(this.abort.signal);
      m?.jobRuns.inc({ job: job.name, outcome: 'ok' });
      m?.jobLastSuccess.set({ job: job.name }, this.opts.now() / 1000);
      // One line per run names the replica, so logs show which one holds what; at debug level,
      // because the outbox alone runs every tick and would bury everything else at info.
      this.opts.log.debug({ job: job.name, holder: this.holder, startedAt, ms: this.opts.now() - startedAt }, `job ${job.name} ran`);
    } catch (e) {
      m?.jobRuns.inc({ job: job.name, outcome: 'error' });
      this.opts.log.error({ job: job.name, holder: this.holder, startedAt }, `job ${job.name} failed: ${(e as Error).message}`);
    } finally {
      await this.opts.leases.markRun(job.name, this.holder, startedAt).catch(() => false);
      this.running.delete(job.name);
    }
  }

  /**
   * Resolves once the tick in progress and every job it started have ended: a
   * caller that runs a job's work itself (tests, on a fake clock) waits here
   * so the scheduler's own run at start cannot race it.
   */
  async idle(): Promise<void> {
    while (this.ticking || this.running.size > 0) await Promise.all([this.ticking, ...this.running.values()]);
  }

  /** Stops ticking, waits for running jobs (bounded), then releases this process's leases. */
  async stop(timeoutMs = 30_000): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.abort.abort();
    const wait = Promise.all([this.ticking, ...this.running.values()]);
    const timedOut = await Promise.race([
      wait.then(() => false),
      new Promise<boolean>((r) => setTimeout(() => r(true), timeoutMs).unref()),
    ]);
    if (timedOut) this.opts.log.warn(`background jobs still running after ${timeoutMs} ms at shutdown`);
    for (const job of this.jobs) {
      await this.opts.leases.release(job.name, this.holder).catch(() => {});
      this.opts.metrics?.jobLeaseHeld.set({ job: job.name }, 0);
      await job.close?.().catch((e: unknown) => this.opts.log.warn(`closing job ${job.name}: ${(e as Error).message}`));
    }
  }
}
