import type { FastifyInstance } from 'fastify';
import { buildApp, type SurfaceExtensions } from './app.js';
import { bootstrapBanner, bootstrapLocalAdmin, type BannerStyle } from './auth/localLogin.js';
import type { Config } from './config.js';
import { connect, type Db } from './db/connect.js';
import { migrateUp, migrationStatus } from './db/migrate.js';
import { Metrics } from './metrics.js';
import { createClickRecorder } from './workers/clickSink.js';
import { createLinkService, KeywordService, UserService, type LinkService } from './links/index.js';
import { createLinkSuggestions } from './llm/index.js';
import { Resolver } from './resolve/resolver.js';
import { Drain } from './http/drain.js';
import { createStore, type Store } from './store/index.js';
import type { ClickRecorder } from './workers/clickWriter.js';
import { startGaugeUpdater } from './workers/gauges.js';
import { periodicJobs } from './workers/jobs.js';
import { JobScheduler } from './workers/scheduler.js';

export interface RunningServer {
  app: FastifyInstance;
  store: Store;
  /** The links application layer: every link change of this server goes through it. */
  links: LinkService;
  metrics: Metrics;
  clickWriter: ClickRecorder;
  scheduler: JobScheduler;
  /** The bound address, e.g. `http://127.0.0.1:8080`. */
  url: string;
  /**
   * Graceful shutdown (docs/server.md#shutdown); resolves once everything is flushed and closed.
   * With `drainMs`, first that long of draining: /readyz answers 503 while every request is still
   * served. `serve` drains for `JOE_SHUTDOWN_DRAIN`; embedded and test servers close at once.
   */
  close(opts?: { drainMs?: number }): Promise<void>;
  /** Ends a drain window early (a second signal); the rest of the shutdown goes on as usual. */
  endDrain(): void;
}

export interface StartOptions {
  logger?: boolean | object;
  /** Override the clock (tests). */
  now?: () => number;
  /** Extra work on startup, after migrations and before listening (bootstrap admin etc.). */
  onReady?: (server: Omit<RunningServer, 'url' | 'close' | 'endDrain'>) => Promise<void>;
  /** Scheduler timing (tests shorten it). */
  scheduler?: { tickMs?: number; leaseTtlMs?: number };
  /**
   * Local mode's first-start bootstrap (docs/auth.md#local-mode): when nobody holds admin,
   * create or promote the bootstrap admin and print a one-time sign-in URL to
   * stdout. `serve` turns it on; embedded and test servers leave it off.
   */
  localBootstrap?: boolean;
  /** How that sign-in URL is framed: `serve` decorates it at a terminal. */
  bannerStyle?: BannerStyle;
  /** How the printed commands start (`joe-links`, `npm run cli --`): as this process was run. */
  cliCommand?: string;
  /** Routes added inside the app's surfaces (tests; see app.tsx). */
  extend?: SurfaceExtensions;
  /** False: every go link through the resolver's Fastify route, to measure what the front saves (bench/). */
  goLinkFront?: boolean;
}

/** Opens the database, applies migrations, starts workers and listens. */
export async function startServer(config: Config, opts: StartOptions = {}): Promise<RunningServer> {
  const db: Db = connect(config.db);
  try {
    const applied = await migrateUp(db);
    const store = createStore(db, opts.now);
    const metrics = new Metrics();
    // Built before the app so its logger can report failing event subscribers once it exists.
    let log: FastifyInstance['log'] | null = null;
    const links = createLinkService(store, {
      mail: config.mail.smtp !== null,
      onSubscriberError: (err, event) => log?.error({ err, kind: event.kind, linkId: event.linkId }, 'link event subscriber failed'),
    });
    const ipHashSecret = await store.settings.ipHashSecret();
    let clickWriter: ClickRecorder | null = null;
    const suggestions = createLinkSuggestions(config);
    const drain = new Drain();
    const app = await buildApp({
      config,
      store,
      links,
      users: new UserService(store),
      keywords: new KeywordService(store),
      resolver: new Resolver(store),
      suggestions,
      metrics,
      logger: opts.logger,
      recordClick: (e) => clickWriter!.enqueue(e),
      migrationStatus: () => migrationStatus(db),
      draining: () => drain.active,
      extend: opts.extend,
      goLinkFront: opts.goLinkFront,
    });
    log = app.log;
    if (suggestions) app.addHook('onClose', async () => suggestions.close());
    if (applied.length > 0) {
      app.log.info(`applied ${applied.length} migration${applied.length === 1 ? '' : 's'}, up to ${applied.at(-1)}`);
    }
    clickWriter = createClickRecorder(db, store.clicks, config.db.dsn, { metrics, log: app.log, ipHashSecret });
    clickWriter.start();
    const gauges = startGaugeUpdater(store, metrics, app.log);
    const scheduler = new JobScheduler({
      leases: store.leases,
      log: app.log,
      now: store.now,
      metrics,
      tickMs: config.jobs.tickMs,
      ...opts.scheduler,
    });
    for (const job of periodicJobs({ config, store, sqlite: db.sqlite, metrics, log: app.log })) scheduler.add(job);
    await opts.onReady?.({ app, store, links, metrics, clickWriter, scheduler });

    await app.listen({ host: config.http.host, port: config.http.port });
    scheduler.start();
    app.log.info({ holder: scheduler.holder }, `job scheduler started as lease holder ${scheduler.holder}`);
    const addr = app.server.address();
    const port = typeof addr === 'object' && addr ? addr.port : config.http.port;
    const host = config.http.host.includes(':') ? `[${config.http.host}]` : config.http.host;
    const url = `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`;
    app.log.info(`listening on ${host}:${port}`);
    // After listening, so the printed link works the moment someone opens it.
    if (opts.localBootstrap) {
      const boot = await bootstrapLocalAdmin(store, config);
      if (boot) {
        app.log.info(
          { userId: boot.user.id, email: boot.user.email },
          `bootstrap admin ${boot.action}; one-time sign-in URL printed to stdout`,
        );
        process.stdout.write(bootstrapBanner(boot, opts.bannerStyle, opts.cliCommand));
      } else if (config.authMode === 'local') {
        app.log.info(`local mode: print a one-time sign-in URL with \`${opts.cliCommand ?? 'joe-links'} login-url [--email E]\``);
      }
    }

    let closing: Promise<void> | null = null;
    let endDrain = () => {};
    const writer = clickWriter;
    const close = (closeOpts: { drainMs?: number } = {}) =>
      (closing ??= (async () => {
        // 1. start no new job and hand each lease on as soon as its running job ends, so
        //    another replica takes over without waiting for expiry.
        const jobsStopped = scheduler.stop(30_000);
        // Awaited once the drain and the requests are over; marked handled so a failure meanwhile
        // is not an unhandled rejection, which would end the process mid-drain.
        jobsStopped.catch(() => {});
        // 2. drain: unready, yet serving everything, until load balancers have noticed.
        drain.begin(app.server);
        const drainMs = closeOpts.drainMs ?? 0;
        if (drainMs > 0) {
          app.log.info(`draining for ${drainMs} ms: /readyz answers 503, requests are still served`);
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, drainMs);
            endDrain = () => {
              clearTimeout(timer);
              resolve();
            };
          });
        }
        // 3. stop accepting; let in-flight requests finish, bounded.
        const drained = app.close();
        const timer = setTimeout(() => app.server.closeAllConnections(), config.shutdownTimeoutMs);
        timer.unref();
        await drained;
        clearTimeout(timer);
        // 4. flush every queued click.
        await writer.close(30_000);
        // 5. close the database once jobs are done with it.
        gauges.stop();
        await jobsStopped;
        await db.close();
      })());
    return { app, store, links, metrics, clickWriter, scheduler, url, close, endDrain: () => endDrain() };
  } catch (e) {
    await db.close().catch(() => {});
    throw e;
  }
}
