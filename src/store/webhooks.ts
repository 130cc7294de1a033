import { randomUUID } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
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

  /** Deletes the endpoint; its deliveries and their attempts cascade away. */
  async delete(id: string): Promise<boolean> {
    const r = await this.db.deleteFrom('webhooks').where('id', '=', id).executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }
}
