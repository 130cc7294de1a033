import { EXPIRY_NOTICE_MS } from '../domain/notifications.js';
import { iso } from '../links/resource.js';
import type { HealthChangeRecorder } from '../store/health.js';
import type { Store } from '../store/index.js';
import type { Executor } from '../store/types.js';
import { recordNotifications, type NotificationDraft, type NotifyOptions } from './record.js';
import { enqueueWebhooks, linkResourceIn, type WebhookMessage } from './webhooks.js';

/**
 * What the server itself notices about a link and announces: its destination
 * turning broken or ok again (the health checker) and its expiry coming up
 * or passing (the expiry watch) — docs/notifications.md#what-you-are-notified-about.
 * Each announcement is written in one transaction with what makes it
 * happen, so it is made exactly once.
 */

type LifecycleStore = Pick<
  Store,
  'notifications' | 'outbox' | 'users' | 'owners' | 'links' | 'health' | 'webhooks' | 'expiryNotices' | 'settings' | 'transaction' | 'now'
>;

export const HEALTH_ACTOR = { type: 'system', via: 'health-checker' } as const;
export const EXPIRY_ACTOR = { type: 'system', via: 'expiry-watch' } as const;

/** Every owner of a link hears the same thing the server noticed about it. */
async function tellOwners(
  store: LifecycleStore,
  tx: Executor,
  link: { id: string; slug: string },
  note: Pick<NotificationDraft, 'kind' | 'detail'>,
  opts: NotifyOptions,
): Promise<void> {
  const owners = await store.owners.peopleOf(link.id, tx);
  const drafts = owners.map((userId) => ({ userId, linkId: link.id, linkSlug: link.slug, ...note }));
  await recordNotifications(store, tx, drafts, opts);
}

/** The health checker's hook: owners hear of `broken`, webhooks of both directions. */
export function healthChangeRecorder(store: LifecycleStore, opts: NotifyOptions): HealthChangeRecorder {
  return async (tx, change) => {
    const link = await linkResourceIn(store, tx, change.linkId, store.now());
    if (!link) return;
    if (change.to === 'broken') await tellOwners(store, tx, link, { kind: 'link_broken', detail: { actor: HEALTH_ACTOR } }, opts);
    await enqueueWebhooks(store, tx, [
      {
        type: 'link.health_changed',
        timestamp: iso(change.at),
        data: { link, actor: HEALTH_ACTOR, changes: { health: { from: change.from, to: change.to } } },
      },
    ]);
  };
}

export interface ExpirySummary {
  expiring: number;
  expired: number;
}

/** Settings row: expiries that passed before this instant (the watch's first run) are never announced as passing. */
const EXPIRED_SINCE = 'expiry_watch_since';

/**
 * One run of the expiry watch: owners of links expiring within a week are
 * told once per expiry value; webhooks hear `link.expired` once per expiry
 * value that has passed since the watch first ran.
 */
export async function announceExpiries(store: LifecycleStore, opts: NotifyOptions, limit = 200): Promise<ExpirySummary> {
  const now = store.now();
  const summary: ExpirySummary = { expiring: 0, expired: 0 };
  for (const l of await store.expiryNotices.due('expiring', now, now + EXPIRY_NOTICE_MS, limit)) {
    await store.transaction(async (tx) => {
      await store.expiryNotices.mark(l.id, 'expiring', l.expiresAt, now, tx);
      await tellOwners(store, tx, l, { kind: 'link_expiring', detail: { actor: EXPIRY_ACTOR, expiresAt: l.expiresAt } }, opts);
    });
    summary.expiring++;
  }
  const since = Number(await store.settings.getOrCreate(EXPIRED_SINCE, () => String(now)));
  for (const l of await store.expiryNotices.due('expired', since, now, limit)) {
    await store.transaction(async (tx) => {
      await store.expiryNotices.mark(l.id, 'expired', l.expiresAt, now, tx);
      const link = await linkResourceIn(store, tx, l.id, now);
      if (!link) return;
      const message: WebhookMessage = {
        type: 'link.expired',
        timestamp: iso(l.expiresAt),
        data: { link, actor: EXPIRY_ACTOR, changes: { lifecycle_state: { from: 'active', to: 'expired' } } },
      };
      await enqueueWebhooks(store, tx, [message]);
    });
    summary.expired++;
  }
  return summary;
}
