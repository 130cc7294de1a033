import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.js';
import type { Db } from '../db/connect.js';
import type { Metrics } from '../metrics.js';
import type { Store } from '../store/index.js';
import { clickPrunerJob, logRetentionAtStartup } from './clickPruner.js';
import { clickRollupJob } from './clickRollup.js';
import { healthCheckerJob } from './healthChecker.js';
import { healthChangeRecorder } from '../notify/lifecycle.js';
import { expiryWatchJob } from './expiryWatch.js';
import { mailChannel, smtpSender } from './mailChannel.js';
import { webhookChannel } from './webhookChannel.js';
import { OutboxDispatcher, outboxJob, type ChannelHandler } from './outbox.js';
import type { PeriodicJob } from './scheduler.js';
import { sqliteBackupJobs } from './sqliteBackup.js';
import { stateLinkSweepJob } from './stateLinkSweep.js';

export interface JobDeps {
  config: Config;
  store: Store;
  /** The SQLite connection the backup job copies; null on PostgreSQL and MySQL. */
  sqlite: Db['sqlite'];
  metrics: Metrics;
  log: FastifyBaseLogger;
}

/** Every leased periodic job of this server (docs/server.md#background-jobs-and-leases). Each feature adds its own here. */
export function periodicJobs(deps: JobDeps): PeriodicJob[] {
  const { store, log } = deps;
  return [
    {
      name: 'session-sweep',
      intervalMs: deps.config.jobs.sessionSweepIntervalMs,
      runAtStart: true,
      async run() {
        const n = await store.sessions.deleteExpired();
        if (n > 0) log.info(`session sweep removed ${n} expired sessions`);
        // Used or expired one-time sign-in links can never sign anyone in again.
        const t = await store.loginTokens.deleteSpent();
        if (t > 0) log.info(`session sweep removed ${t} spent sign-in links`);
        // Idempotency keys are kept 24 hours (docs/api.md#safe-retries).
        const k = await store.idempotency.purge();
        if (k > 0) log.info(`session sweep removed ${k} expired idempotency keys`);
      },
    },
    // Disabled means never started: no probe is sent and no link_health row is written.
    ...(deps.config.healthChecks.enabled
      ? [healthCheckerJob({ store, log, ...deps.config.healthChecks, onHealthChange: healthChangeRecorder(store, notifyOptions(deps)) })]
      : []),
    stateLinkSweepJob(store, deps.config.stateLinks.intervalMs, log),
    ...sqliteBackupJobs(deps.sqlite, store, { ...deps.config.backup, intervalMs: deps.config.stateLinks.intervalMs }, log),
    clickRollupJob(store.clickRollups, log),
    // Retention is opt-in: unset or 0 means the pruner does not exist and no click is ever deleted.
    ...retentionJobs(deps),
    expiryWatchJob(store, notifyOptions(deps), log),
    ...outboxJobs(deps),
  ];
}

/** Notifications are mailed only when mail is configured. */
export function notifyOptions(deps: Pick<JobDeps, 'config'>): { mail: boolean } {
  return { mail: deps.config.mail.smtp !== null };
}

/** The outbox channels of this server: mail when it is configured, webhooks always. */
function outboxChannels(deps: JobDeps): ChannelHandler[] {
  const { config, store } = deps;
  const channels: ChannelHandler[] = [];
  if (config.mail.smtp) {
    channels.push(
      mailChannel({
        store,
        sender: smtpSender(config.mail.smtp),
        from: config.mail.from!,
        baseUrl: config.baseUrl,
        prefix: config.shortKeyword || 'go',
        pacing: config.mailPacing,
      }),
    );
  }
  channels.push(webhookChannel({ store, retryBaseMs: config.webhooks.retryBaseMs, allowPrivate: config.webhooks.allowPrivate }));
  return channels;
}

/**
 * One dispatcher over every channel, for a caller that delivers what is due
 * itself and waits for it (tests, on their own clock). The server runs
 * `outboxJobs` instead.
 */
export function outboxDispatcher(deps: JobDeps): OutboxDispatcher {
  return new OutboxDispatcher({ store: deps.store, channels: outboxChannels(deps), log: deps.log, metrics: deps.metrics });
}

/**
 * A leased job per channel (docs/notifications.md#delivery): mail and
 * webhooks are dispatched apart, so no webhook endpoint, however slow, ever
 * delays a mail.
 */
function outboxJobs(deps: JobDeps): PeriodicJob[] {
  return outboxChannels(deps).map((channel) =>
    outboxJob(channel.channel, new OutboxDispatcher({ store: deps.store, channels: [channel], log: deps.log, metrics: deps.metrics })),
  );
}

function retentionJobs(deps: JobDeps): PeriodicJob[] {
  const days = deps.config.clickRetentionDays;
  if (!days) return [];
  logRetentionAtStartup(deps.log, days);
  return [
    clickPrunerJob({
      retention: deps.store.clickRetention,
      metrics: deps.metrics,
      log: deps.log,
      now: deps.store.now,
      retentionDays: days,
    }),
  ];
}
