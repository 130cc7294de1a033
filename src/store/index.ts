import type { Db } from '../db/connect.js';
import { AccessStore } from './access.js';
import { AnalyticsStore } from './analytics.js';
import { BrowseStore } from './browse.js';
import { ClickRetentionStore } from './clickRetention.js';
import { ClickRollupStore } from './clickRollups.js';
import { ClickStore, PostgresClickStore } from './clicks.js';
import { DiscoveryStore } from './discovery.js';
import { HealthStore } from './health.js';
import { IdempotencyStore } from './idempotency.js';
import { IdentityStore } from './identities.js';
import { KeywordStore } from './keywords.js';
import { LeaseStore } from './leases.js';
import { LinkEventStore } from './linkEvents.js';
import { LinkNameStore } from './linkNames.js';
import { LinkStore } from './links.js';
import { LoginTokenStore } from './loginTokens.js';
import { NotificationStore } from './notifications.js';
import { OutboxStore } from './outbox.js';
import { WebhookStore } from './webhooks.js';
import { ExpiryNoticeStore } from './expiryNotices.js';
import { GroupStore } from './groups.js';
import { OwnerStore } from './owners.js';
import { SessionStore } from './sessions.js';
import { SettingsStore } from './settings.js';
import { ShareStore } from './shares.js';
import { StalenessStore } from './staleness.js';
import { StateLinkStore } from './stateLinks.js';
import { TagStore } from './tags.js';
import { ApiTokenStore } from './tokens.js';
import { retryOnDeadlock, translateDbError } from './dbErrors.js';
import type { Clock, Executor } from './types.js';
import { UserDeletionStore } from './userDeletion.js';
import { UserStore } from './users.js';

/** Every store over one database. Routes and workers talk to these; no SQL lives elsewhere. */
export interface Store {
  db: Db;
  now: Clock;
  users: UserStore;
  sessions: SessionStore;
  links: LinkStore;
  /** Slugs and aliases, one namespace (docs/links.md#aliases). */
  linkNames: LinkNameStore;
  owners: OwnerStore;
  shares: ShareStore;
  /** Groups, their members, and the links they own or are shared (docs/groups.md). */
  groups: GroupStore;
  /** First answers kept for retries with an Idempotency-Key (docs/api.md#safe-retries). */
  idempotency: IdempotencyStore;
  tags: TagStore;
  keywords: KeywordStore;
  access: AccessStore;
  discovery: DiscoveryStore;
  clicks: ClickStore;
  /** Analytics reads: totals, recent clicks, series, breakdowns, dashboard, CSV export (docs/analytics.md). */
  analytics: AnalyticsStore;
  /** Retention pruner deletes (JOE_CLICK_RETENTION). */
  clickRetention: ClickRetentionStore;
  /** Daily click rollups the analytics reads use for closed days (written by the click-rollup job). */
  clickRollups: ClickRollupStore;
  settings: SettingsStore;
  leases: LeaseStore;
  /** Admin user deletion with link disposition (docs/auth.md#deleting-a-user). */
  userAdmin: UserDeletionStore;
  stateLinks: StateLinkStore;
  /** Personal access tokens (docs/auth.md#api-tokens). */
  tokens: ApiTokenStore;
  /** Local-mode one-time sign-in links. */
  loginTokens: LoginTokenStore;
  /** Sign-in writes to users: OIDC upsert and adoption, forward-auth, config grants. */
  identities: IdentityStore;
  /** Destination health: checker writes, derived status, admin report (docs/lifecycle.md#health-checks, docs/lifecycle.md#ssrf-guard, docs/lifecycle.md#badges-and-the-admin-report). */
  health: HealthStore;
  /** "Stale" and "Never clicked" views (docs/lifecycle.md#staleness). */
  staleness: StalenessStore;
  /** Web UI pages: public browser and profiles, admin totals, dashboard tag chips. */
  browse: BrowseStore;
  /** Link history: one row per link event, kept after the link is gone (docs/history.md). */
  linkEvents: LinkEventStore;
  /** Owner notifications and mail choices (docs/notifications.md). */
  notifications: NotificationStore;
  /** Durable deliveries of mail and webhooks (docs/notifications.md#delivery). */
  outbox: OutboxStore;
  /** Registered webhook endpoints (docs/notifications.md#webhooks). */
  webhooks: WebhookStore;
  /** Expiry values already announced (the expiry watch). */
  expiryNotices: ExpiryNoticeStore;
  /**
   * Runs `fn` in one transaction, again from the start if it loses a
   * deadlock (so `fn` must be safe to repeat); a busy or unreachable
   * database becomes its API error. Write methods take the `tx` it passes.
   */
  transaction<T>(fn: (tx: Executor) => Promise<T>, isolation?: 'repeatable read'): Promise<T>;
}

export function createStore(db: Db, now: Clock = Date.now): Store {
  const k = db.kysely;
  const tags = new TagStore(k, db.driver, now);
  const owners = new OwnerStore(k);
  const linkNames = new LinkNameStore(k);
  const hot = (sql: string) => db.hotLookup(sql);
  const users = new UserStore(k, now, hot);
  const clickRollups = new ClickRollupStore(k, now);
  return {
    db,
    now,
    users,
    sessions: new SessionStore(k, now, hot),
    links: new LinkStore(k, db.driver, now, tags, owners, linkNames, hot),
    linkNames,
    owners,
    shares: new ShareStore(k),
    groups: new GroupStore(k),
    idempotency: new IdempotencyStore(k, now),
    tags,
    keywords: new KeywordStore(k, now, hot),
    access: new AccessStore(k, now, hot),
    discovery: new DiscoveryStore(k, now),
    clicks: db.driver === 'postgres' ? new PostgresClickStore(k, now) : new ClickStore(k, now),
    analytics: new AnalyticsStore(k, now, clickRollups),
    clickRetention: new ClickRetentionStore(k, now),
    clickRollups,
    settings: new SettingsStore(k),
    leases: new LeaseStore(k, now),
    userAdmin: new UserDeletionStore(k, now),
    stateLinks: new StateLinkStore(k, now),
    tokens: new ApiTokenStore(k, now),
    loginTokens: new LoginTokenStore(k, now),
    identities: new IdentityStore(k, now, users),
    health: new HealthStore(k, now, owners, new AccessStore(k, now)),
    staleness: new StalenessStore(k, now, tags, owners, linkNames),
    browse: new BrowseStore(k, now, tags, owners, linkNames),
    linkEvents: new LinkEventStore(k),
    notifications: new NotificationStore(k, now),
    outbox: new OutboxStore(k, now),
    webhooks: new WebhookStore(k, now),
    expiryNotices: new ExpiryNoticeStore(k),
    async transaction<T>(fn: (tx: Executor) => Promise<T>, isolation?: 'repeatable read'): Promise<T> {
      try {
        return await retryOnDeadlock(() => {
          const begin = k.transaction();
          return (isolation ? begin.setIsolationLevel(isolation) : begin).execute(fn);
        });
      } catch (e) {
        translateDbError(e);
      }
    },
  };
}

export type { Clock, Link, LinkView, User, Viewer } from './types.js';
