import { randomUUID } from 'node:crypto';
import { lifecycleState } from '../domain/lifecycle.js';
import { subscribes, type WebhookEvent } from '../domain/webhooks.js';
import type { EventRecorder } from '../links/context.js';
import type { EventActor, FieldChanges, LinkEvent } from '../links/events.js';
import { iso, isoOrNull, toLinkResource, type LinkResource } from '../links/resource.js';
import type { Store } from '../store/index.js';
import type { Executor } from '../store/types.js';

/**
 * Webhook deliveries (docs/notifications.md#webhooks), written to the outbox
 * in the transaction of what they announce: a link change (a recorder of the
 * links layer), a health transition, an expiry. The body is fixed when the
 * row is written: the link as it is right after the change.
 */

type WebhookStore = Pick<Store, 'webhooks' | 'outbox' | 'links' | 'health' | 'now'>;

export interface WebhookMessage {
  type: WebhookEvent;
  timestamp: string;
  data: { link: LinkResource; actor: ActorBody; changes: Record<string, { from: unknown; to: unknown }> };
}

export type ActorBody = { type: 'user'; id: string; email: string; display_name: string } | { type: 'system'; via: string };

export function actorBody(a: EventActor): ActorBody {
  return a.kind === 'user' ? { type: 'user', id: a.id, email: a.email, display_name: a.displayName } : { type: 'system', via: a.via };
}

const REST_FIELDS: Record<string, string> = {
  url: 'url',
  defaultUrl: 'default_url',
  title: 'title',
  description: 'description',
  tags: 'tags',
  visibility: 'visibility',
  expiresAt: 'expires_at',
  archivedAt: 'archived_at',
  healthChecksDisabled: 'health_checks_disabled',
};
const TIME_FIELDS = new Set(['expiresAt', 'archivedAt']);

/** Field changes in the REST resource's names and forms (times as RFC 3339). */
export function restChanges(changes: FieldChanges): Record<string, { from: unknown; to: unknown }> {
  const out: Record<string, { from: unknown; to: unknown }> = {};
  for (const [field, c] of Object.entries(changes) as Array<[string, { from: unknown; to: unknown }]>) {
    const time = (v: unknown) => (TIME_FIELDS.has(field) ? isoOrNull(v as number | null) : v);
    out[REST_FIELDS[field] ?? field] = { from: time(c.from), to: time(c.to) };
  }
  return out;
}

const EVENT_TYPES: Partial<Record<LinkEvent['kind'], WebhookEvent>> = {
  created: 'link.created',
  updated: 'link.updated',
  deleted: 'link.deleted',
  archived: 'link.archived',
  unarchived: 'link.unarchived',
  renewed: 'link.renewed',
  restored: 'link.restored',
};

/** The link resource as the REST API shows it to an admin, read in the transaction. */
export async function linkResourceIn(store: WebhookStore, tx: Executor, linkId: string, now: number): Promise<LinkResource | null> {
  const view = await store.links.view(linkId, tx);
  if (!view) return null;
  return toLinkResource(view, now, (await store.health.forLinks([view], now, tx)).get(view.id));
}

/** A deleted link as it was: its last fields, owners and creation time travel on the event. */
function deletedLink(e: Extract<LinkEvent, { kind: 'deleted' }>, now: number): LinkResource {
  const from = <T>(f: keyof FieldChanges, fallback: T): T => ((e.changes[f]?.from as T | null | undefined) ?? fallback) as T;
  const fields = {
    expiresAt: from<number | null>('expiresAt', null),
    archivedAt: from<number | null>('archivedAt', null),
  };
  return {
    id: e.linkId,
    slug: e.slug,
    url: from('url', ''),
    title: from('title', ''),
    description: from('description', ''),
    visibility: from('visibility', 'public'),
    expires_at: isoOrNull(fields.expiresAt),
    archived_at: isoOrNull(fields.archivedAt),
    lifecycle_state: lifecycleState(fields, now),
    tags: from<string[]>('tags', []),
    aliases: from<string[]>('aliases', []),
    forward_path_and_query: from('forwardPathAndQuery', false),
    default_url: from<string | null>('defaultUrl', null),
    owners: e.owners.map((o) => ({ id: o.userId, email: o.email, is_primary: o.isPrimary })),
    created_at: iso(e.createdAt),
    updated_at: iso(e.at),
  };
}

/** Writes one delivery per subscribed endpoint for each message. */
export async function enqueueWebhooks(
  store: Pick<Store, 'webhooks' | 'outbox' | 'now'>,
  tx: Executor,
  messages: readonly WebhookMessage[],
) {
  if (messages.length === 0) return;
  const hooks = await store.webhooks.list(tx);
  if (hooks.length === 0) return;
  const now = store.now();
  const rows = messages.flatMap((m) => {
    const messageId = `msg_${randomUUID().replace(/-/g, '')}`;
    const payload = JSON.stringify(m);
    return hooks
      .filter((h) => subscribes(h.events, m.type))
      .map((h) => ({ channel: 'webhook' as const, webhookId: h.id, messageId, eventType: m.type, payload, dueAt: now }));
  });
  await store.outbox.enqueue(rows, tx);
}

/** The recorder `links/factory.ts` hands the links layer, for every surface. */
export function webhookRecorder(store: WebhookStore): EventRecorder {
  return async (tx, events) => {
    const typed = events.filter((e) => EVENT_TYPES[e.kind] !== undefined);
    if (typed.length === 0 || (await store.webhooks.list(tx)).length === 0) return;
    const now = store.now();
    const messages: WebhookMessage[] = [];
    for (const e of typed) {
      if (!('changes' in e)) continue;
      const link = e.kind === 'deleted' ? deletedLink(e, now) : await linkResourceIn(store, tx, e.linkId, now);
      if (!link) continue;
      messages.push({
        type: EVENT_TYPES[e.kind]!,
        timestamp: iso(e.at),
        data: { link, actor: actorBody(e.actor), changes: restChanges(e.changes) },
      });
    }
    await enqueueWebhooks(store, tx, messages);
  };
}
