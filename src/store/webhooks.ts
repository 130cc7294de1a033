import { randomUUID } from 'node:crypto';
import type { ExpressionBuilder, Kysely, Selectable } from 'kysely';
import type { Database, WebhooksTable } from '../db/schema.js';
import type { WebhookInput } from '../domain/webhooks.js';
import type { Clock, Executor } from './types.js';

/** Registered webhook endpoints (docs/notifications.md#webhooks). The secret is read only to sign. */

export interface Webhook {
  id: string;
  url: string;
  events: string[];
  secret: string;
  createdAt: number;
}

function toWebhook(r: Selectable<WebhooksTable>): Webhook {
  let events: string[] = [];
  try {
    const parsed = JSON.parse(r.events) as unknown;
    if (Array.isArray(parsed)) events = parsed.filter((e): e is string => typeof e === 'string');
  } catch {
    events = [];
  }
  return { id: r.id, url: r.url, events, secret: r.secret, createdAt: Number(r.created_at) };
}

/** An endpoint whose deliveries fail (the admin overview). */
export interface FailingWebhook {
  id: string;
  url: string;
  /** Its deliveries since the window's start that failed, or wait for a retry after failing. */
  failures: number;
  /** What its latest attempted delivery answered: an HTTP status, else an error. */
  lastStatus: number | null;
  lastError: string | null;
}

export class WebhookStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly now: Clock,
  ) {}

  async create(input: WebhookInput): Promise<Webhook> {
    const hook: Webhook = { id: randomUUID(), url: input.url, events: input.events, secret: input.secret, createdAt: this.now() };
    await this.db
      .insertInto('webhooks')
      .values({ id: hook.id, url: hook.url, events: JSON.stringify(hook.events), secret: hook.secret, created_at: hook.createdAt })
      .execute();
    return hook;
  }

  /** Every endpoint, oldest first (a handful per install); recorders read them in the change's transaction. */
  async list(db: Executor = this.db): Promise<Webhook[]> {
    const rows = await db.selectFrom('webhooks').selectAll().orderBy('created_at').orderBy('id').execute();
    return rows.map(toWebhook);
  }

  async get(id: string, db: Executor = this.db): Promise<Webhook | null> {
    const r = await db.selectFrom('webhooks').selectAll().where('id', '=', id).executeTakeFirst();
    return r ? toWebhook(r) : null;
  }

  /**
   * Endpoints whose latest attempted delivery did not get through (docs/web-ui.md#admin-screens):
   * it failed for good, or it waits for a retry after a failed attempt. Each with how many of its
   * deliveries since `since` failed that way and what its latest attempt answered. One query with
   * a subquery per endpoint over `idx_outbox_webhook`; there are a handful of endpoints. Most
   * failures first, then by URL.
   */
  async failing(since: number): Promise<FailingWebhook[]> {
    const attempted = (eb: ExpressionBuilder<Database, 'webhooks'>) =>
      eb
        .selectFrom('outbox')
        .whereRef('outbox.webhook_id', '=', 'webhooks.id')
        .where('outbox.attempts', '>', 0)
        .orderBy('outbox.created_at', 'desc')
        .orderBy('outbox.id', 'desc')
        .limit(1);
    const rows = await this.db
      .selectFrom('webhooks')
      .select((eb) => [
        'webhooks.id',
        'webhooks.url',
        attempted(eb).select('outbox.status').as('latest'),
        attempted(eb).select('outbox.last_status').as('last_status'),
        attempted(eb).select('outbox.last_error').as('last_error'),
        eb
          .selectFrom('outbox')
          .select((sub) => sub.fn.countAll<number>().as('n'))
          .whereRef('outbox.webhook_id', '=', 'webhooks.id')
          .where('outbox.created_at', '>=', since)
          .where('outbox.attempts', '>', 0)
          .where('outbox.status', 'in', ['failed', 'pending'])
          .as('failures'),
      ])
      .execute();
    return rows
      .filter((r) => r.latest === 'failed' || r.latest === 'pending')
      .map((r) => ({
        id: r.id,
        url: r.url,
        failures: Number(r.failures ?? 0),
        lastStatus: r.last_status === null || r.last_status === undefined ? null : Number(r.last_status),
        lastError: r.last_error ?? null,
      }))
      .sort((a, b) => b.failures - a.failures || a.url.localeCompare(b.url));
  }

  /** Deletes the endpoint; its deliveries and their attempts cascade away. */
  async delete(id: string): Promise<boolean> {
    const r = await this.db.deleteFrom('webhooks').where('id', '=', id).executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }
}
