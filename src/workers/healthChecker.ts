import { parseHttpUrl } from '../net/guardedClient.js';
import { HealthProbe, type HealthProbeOptions } from './healthProbe.js';
import type { PeriodicJob } from './scheduler.js';

/**
 * The destination health checker (docs/lifecycle.md#health-checks): a leased periodic job that
 * probes due links through the guarded client, politely, and records each
 * outcome. The bounds below are fixed by the spec; no setting relaxes them.
 */

export const HEALTH_CHECKER_JOB = 'health-checker';
export const MAX_IN_FLIGHT = 4;
export const HOST_SPACING_MS = 1_000;
/** Keeps one run bounded; whatever is still due is picked up at the next wake-up. */
export const MAX_PROBES_PER_RUN = 500;
const WAKE_MAX_MS = 5 * 60_000;

/** The wake-up period: min(interval / 8, 5 min), at least 1 s. Per-link cadence is `next_check_at`'s job. */
export function wakeIntervalMs(intervalMs: number): number {
  return Math.max(1_000, Math.min(Math.floor(intervalMs / 8), WAKE_MAX_MS));
}

interface Log {
  info(msg: string): void;
  warn(msg: string): void;
}

export interface HealthCheckerOptions extends HealthProbeOptions {
  log: Log;
  maxProbesPerRun?: number;
}

export interface CycleSummary {
  due: number;
  success: number;
  failure: number;
  rateLimited: number;
  skipped: number;
  /** Probes cut short by shutdown; nothing was recorded for them. */
  aborted: number;
}

function hostKey(url: string): string {
  // Port ignored: two services on one machine share its politeness budget.
  return parseHttpUrl(url)?.hostname.toLowerCase() ?? '';
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

export class HealthChecker {
  readonly probe: HealthProbe;

  constructor(private readonly opts: HealthCheckerOptions) {
    this.probe = new HealthProbe(opts);
  }

  /**
   * One cycle: load due links (one eligibility query), then probe them with at
   * most MAX_IN_FLIGHT in flight and one probe per host at a time. The next
   * probe to a host starts HOST_SPACING_MS after the previous one *finished*,
   * stricter than start-to-start, so the destination itself sees requests at
   * least that far apart whatever the network delays. An aborted signal stops
   * new probes and cancels running ones without recording them.
   */
  async runCycle(signal: AbortSignal): Promise<CycleSummary> {
    const { store } = this.opts;
    const due = await store.health.dueLinks(this.opts.maxProbesPerRun ?? MAX_PROBES_PER_RUN, store.now());
    const summary: CycleSummary = { due: due.length, success: 0, failure: 0, rateLimited: 0, skipped: 0, aborted: 0 };
    const queue = due.map((l) => ({ ...l, host: hostKey(l.url) }));
    const busy = new Set<string>();
    const readyAt = new Map<string, number>();

    const take = async () => {
      for (;;) {
        if (signal.aborted || queue.length === 0) return null;
        const t = performance.now();
        let wait = 100;
        for (let i = 0; i < queue.length; i++) {
          const item = queue[i]!;
          // Unprobeable URLs send nothing, so they need no politeness slot.
          if (item.host === '') return queue.splice(i, 1)[0]!;
          if (busy.has(item.host)) continue;
          const at = readyAt.get(item.host) ?? -Infinity;
          if (at <= t) {
            busy.add(item.host);
            return queue.splice(i, 1)[0]!;
          }
          wait = Math.min(wait, at - t);
        }
        await sleep(Math.max(wait, 1), signal);
      }
    };

    const worker = async () => {
      for (let item = await take(); item; item = await take()) {
        try {
          const outcome = await this.probe.check(item, signal);
          if (outcome === null) summary.aborted++;
          else if (outcome.kind === 'success') summary.success++;
          else if (outcome.kind === 'failure') summary.failure++;
          else if (outcome.kind === 'rate-limited') summary.rateLimited++;
          else summary.skipped++;
        } catch (e) {
          if (signal.aborted) summary.aborted++;
          else this.opts.log.warn(`health check of link ${item.id} failed to record: ${(e as Error).message}`);
        } finally {
          readyAt.set(item.host, performance.now() + HOST_SPACING_MS);
          busy.delete(item.host);
        }
      }
    };

    await Promise.all(Array.from({ length: MAX_IN_FLIGHT }, worker));
    const probed = summary.success + summary.failure + summary.rateLimited + summary.skipped;
    if (probed > 0 || summary.aborted > 0) {
      this.opts.log.info(
        `health check: ${probed} probed (${summary.success} ok, ${summary.failure} failed, ${summary.rateLimited} rate-limited, ${summary.skipped} skipped)` +
          (summary.aborted > 0 ? `, ${summary.aborted} cancelled by shutdown` : ''),
      );
    }
    return summary;
  }

  async close(): Promise<void> {
    await this.probe.close();
  }
}

/** The leased `health-checker` job; added only when JOE_HEALTH_CHECKS_ENABLED is true. */
export function healthCheckerJob(opts: HealthCheckerOptions): PeriodicJob {
  const checker = new HealthChecker(opts);
  const hours = (ms: number) => (ms % 3_600_000 === 0 ? `${ms / 3_600_000}h` : `${Math.round(ms / 60_000)}m`);
  opts.log.info(
    `health checks on: each link every ${hours(opts.intervalMs)}, timeout ${opts.timeoutMs / 1000}s, ` +
      `private destinations ${opts.allowPrivate ? 'allowed (JOE_HEALTH_CHECK_ALLOW_PRIVATE)' : 'refused'}`,
  );
  return {
    name: HEALTH_CHECKER_JOB,
    intervalMs: wakeIntervalMs(opts.intervalMs),
    runAtStart: true,
    async run(signal) {
      await checker.runCycle(signal);
    },
    close: () => checker.close(),
  };
}
