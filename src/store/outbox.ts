import { randomUUID } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import type { Database, OutboxTable } from '../db/schema.js';
import { clickIds } from '../domain/click.js';
import type { OutboxStatus } from '../domain/outbox.js';
import { newestFirstCount, newestFirstPage, type CreatedKey, type NewestFirstFrom } from './newestFirst.js';
import type { Clock, Executor } from './types.js';

/**
 * The one outbox mail and webhooks deliver through (docs/notifications.md#delivery).
 * Rows are written by recorders in the transaction of the change they
 * announce; the dispatcher (workers/outbox.ts), under its job lease, claims
 * due rows, attempts them and records each attempt with the row's next
 * state in one transaction.
 */

export type OutboxChannel = 'mail' | 'webhook';

export interface NewOutboxRow {
  channel: OutboxChannel;
  /** The recipient of a mail. */
  userId?: string;
  /** The endpoint of a webhook call. */
  webhookId?: string;
  /** Stable across retries and redeliveries of one message (the `webhook-id` header). */
  messageId: string;
  eventType: string;
  payload: string;
  /** When the first attempt is due. */
  dueAt: number;
}

export interface OutboxRow {
  id: string;
  channel: OutboxChannel;
  userId: string | null;
  webhookId: string | null;
  messageId: string;
  eventType: string;
  payload: string;
  status: OutboxStatus;
  attempts: number;
  nextAttemptAt: number;
  createdAt: number;
  finishedAt: number | null;
  lastStatus: number | null;
  lastError: string | null;
}

export interface OutboxAttempt {
  attempt: number;
  at: number;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
}

/** Whose deliveries share a lane: a mail's recipient or a webhook's endpoint. */
export interface OutboxTarget {
  channel: OutboxChannel;
  /** The recipient's user id (mail) or the endpoint's id (webhook). */
  id: string;
}

export function targetKey(t: OutboxTarget): string {
  return `${t.channel}:${t.id}`;
}

/** The target of a row. */
export function rowTarget(r: Pick<OutboxRow, 'channel' | 'userId' | 'webhookId'>): OutboxTarget {
  return { channel: r.channel, id: (r.channel === 'mail' ? r.userId : r.webhookId) ?? '' };
}

/** Which due rows a claim may take: some channels' only, or one target's. */
export interface OutboxScope {
  channels?: readonly OutboxChannel[];
  target?: OutboxTarget;
}

/** The row's state after an attempt (or after deciding there is nothing to send). */
export type OutboxNext = { status: 'pending'; nextAttemptAt: number } | { status: 'delivered' | 'failed' | 'skipped'; at: number };

const num = (v: number | string | null): number | null => (v === null ? null : Number(v));

function toRow(r: Selectable<OutboxTable>): OutboxRow {
  return {
    id: r.id,
    channel: r.channel as OutboxChannel,
    userId: r.user_id,
    webhookId: r.webhook_id,
    messageId: r.message_id,
    eventType: r.event_type,
    payload: r.payload,
    status: r.status as OutboxStatus,
    attempts: Number(r.attempts),
    nextAttemptAt: Number(r.next_attempt_at),
    createdAt: Number(r.created_at),
    finishedAt: num(r.finished_at),
    lastStatus: num(r.last_status),
    lastError: r.last_error,
  };
}

export class OutboxStore {
  /** Time-ordered ids: rows due at the same moment are attempted in the order they were written. */
  private readonly nextId: () => string;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly now: Clock,
  ) {
    this.nextId = clickIds(now);
  }

  /** Adds deliveries inside the caller's transaction; returns their ids. */
  async enqueue(rows: readonly NewOutboxRow[], tx: Executor): Promise<string[]> {
    if (rows.length === 0) return [];
    const created = this.now();
    const values = rows.map((r) => ({
      id: this.nextId(),
      channel: r.channel,
      user_id: r.userId ?? null,
      webhook_id: r.webhookId ?? null,
      message_id: r.messageId,
      event_type: r.eventType,
      payload: r.payload,
      status: 'pending',
      attempts: 0,
      next_attempt_at: r.dueAt,
      claimed_until: null,
      created_at: created,
      finished_at: null,
      last_status: null,
      last_error: null,
    }));
    await tx.insertInto('outbox').values(values).execute();
    return values.map((v) => v.id);
  }

  /**
   * Claims up to `limit` due rows for `holdMs`: a row is due when pending,
   * its attempt time has come and no live claim holds it. Each claim is one
   * conditional update, so two dispatchers (a lease changing hands) never
   * both take a row; a crashed claimer's rows come back when the claim ends.
   * `scope` narrows it to some channels, or to one target's lane, whose rows
   * come oldest first (by id, which is time-ordered) whatever their retry times.
   */
  async claimDue(limit: number, holdMs: number, now: number = this.now(), scope: OutboxScope = {}): Promise<OutboxRow[]> {
    let q = this.dueRows(now, scope).selectAll();
    q = scope.target ? q.orderBy('id') : q.orderBy('next_attempt_at').orderBy('id');
    const candidates = await q.limit(limit).execute();
    const claimed: OutboxRow[] = [];
    for (const r of candidates) {
      const u = await this.db
        .updateTable('outbox')
        .set({ claimed_until: now + holdMs })
        .where('id', '=', r.id)
        .where('status', '=', 'pending')
        .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<=', now)]))
        .executeTakeFirst();
      if (Number(u.numUpdatedRows) > 0) claimed.push(toRow(r));
    }
    return claimed;
  }

  /**
   * The targets (a mail's recipient, a webhook's endpoint) with rows due and
   * unclaimed, the longest waiting first, leaving out those in `except`
   * (lanes already being served): where a dispatcher opens its next lanes.
   */
  async dueTargets(
    limit: number,
    opts: { channels?: readonly OutboxChannel[]; except?: ReadonlySet<string>; now?: number } = {},
  ): Promise<OutboxTarget[]> {
    const except = opts.except ?? new Set<string>();
    const rows = await this.dueRows(opts.now ?? this.now(), { channels: opts.channels })
      .select((eb) => ['channel', 'user_id', 'webhook_id', eb.fn.min('next_attempt_at').as('due')])
      .groupBy(['channel', 'user_id', 'webhook_id'])
      .orderBy('due')
      .limit(limit + except.size)
      .execute();
    return rows
      .map((r) => ({ channel: r.channel as OutboxChannel, id: (r.channel === 'mail' ? r.user_id : r.webhook_id) ?? '' }))
      .filter((t) => !except.has(targetKey(t)))
      .slice(0, limit);
  }

  /** Gives claimed rows back unattempted (a lane that stops early), so they are due again at once. */
  async release(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.db
      .updateTable('outbox')
      .set({ claimed_until: null })
      .where('id', 'in', [...ids])
      .where('status', '=', 'pending')
      .execute();
  }

  private dueRows(now: number, scope: OutboxScope) {
    let q = this.db
      .selectFrom('outbox')
      .where('status', '=', 'pending')
      .where('next_attempt_at', '<=', now)
      .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<=', now)]));
    if (scope.channels) q = q.where('channel', 'in', [...scope.channels]);
    if (scope.target) {
      const { channel, id } = scope.target;
      q = q.where('channel', '=', channel).where(channel === 'mail' ? 'user_id' : 'webhook_id', '=', id);
    }
    return q;
  }

  /**
   * Records one attempt and the row's next state in the caller's
   * transaction, and releases the claim. `attempt` is null when nothing was
   * sent (folded into another mail, or not due yet).
   */
  async settle(id: string, attempt: OutboxAttempt | null, next: OutboxNext, tx: Executor): Promise<void> {
    if (attempt) {
      await tx
        .insertInto('outbox_attempts')
        .values({
          id: randomUUID(),
          outbox_id: id,
          attempt: attempt.attempt,
          at: attempt.at,
          duration_ms: Math.max(0, Math.round(attempt.durationMs)),
          status_code: attempt.statusCode,
          error: attempt.error,
        })
        .execute();
    }
    await tx
      .updateTable('outbox')
      .set({
        status: next.status,
        claimed_until: null,
        ...(attempt ? { attempts: attempt.attempt, last_status: attempt.statusCode, last_error: attempt.error } : {}),
        ...(next.status === 'pending' ? { next_attempt_at: next.nextAttemptAt } : { finished_at: next.at }),
      })
      .where('id', '=', id)
      .execute();
  }

  async get(id: string, db: Executor = this.db): Promise<OutboxRow | null> {
    const r = await db.selectFrom('outbox').selectAll().where('id', '=', id).executeTakeFirst();
    return r ? toRow(r) : null;
  }

  /** Every attempt of the given rows, oldest first. */
  async attempts(ids: readonly string[]): Promise<Map<string, OutboxAttempt[]>> {
    const out = new Map<string, OutboxAttempt[]>();
    if (ids.length === 0) return out;
    const rows = await this.db
      .selectFrom('outbox_attempts')
      .selectAll()
      .where('outbox_id', 'in', [...new Set(ids)])
      .orderBy('outbox_id')
      .orderBy('attempt')
      .execute();
    for (const r of rows) {
      const list = out.get(r.outbox_id) ?? [];
      list.push({
        attempt: Number(r.attempt),
        at: Number(r.at),
        durationMs: Number(r.duration_ms),
        statusCode: num(r.status_code),
        error: r.error,
      });
      out.set(r.outbox_id, list);
    }
    return out;
  }

  /** One endpoint's deliveries, newest first, a keyset page before or after (created_at, id). */
  async forWebhook(webhookId: string, opts: NewestFirstFrom & { limit: number }): Promise<{ rows: OutboxRow[]; hasMore: boolean }> {
    const { rows, hasMore } = await newestFirstPage(this.ofWebhook(webhookId).selectAll(), opts, opts.limit);
    return { rows: rows.map(toRow), hasMore };
  }

  /** How many deliveries the endpoint has, or only those newer than `newerThan`: where a page sits. */
  async countForWebhook(webhookId: string, opts: { newerThan?: CreatedKey } = {}): Promise<number> {
    return newestFirstCount(this.ofWebhook(webhookId), opts.newerThan);
  }

  private ofWebhook(webhookId: string) {
    return this.db.selectFrom('outbox').where('webhook_id', '=', webhookId);
  }

  /**
   * Sends a webhook delivery again as a new delivery of the same message
   * (same `webhook-id`, same body), due now. Null when the delivery is not
   * one of this endpoint's.
   */
  async redeliver(id: string, webhookId: string): Promise<OutboxRow | null> {
    return this.db.transaction().execute(async (tx) => {
      const row = await this.get(id, tx);
      if (!row || row.webhookId !== webhookId) return null;
      const [newId] = await this.enqueue(
        [{ channel: 'webhook', webhookId, messageId: row.messageId, eventType: row.eventType, payload: row.payload, dueAt: this.now() }],
        tx,
      );
      return this.get(newId!, tx);
    });
  }

  /** When each mail delivered to one person since `since` went out: one row is one mail, a digest too. */
  async mailedAt(userId: string, since: number): Promise<number[]> {
    const rows = await this.db
      .selectFrom('outbox')
      .select('finished_at')
      .where('user_id', '=', userId)
      .where('channel', '=', 'mail')
      .where('status', '=', 'delivered')
      .where('finished_at', '>', since)
      .execute();
    return rows.map((r) => Number(r.finished_at));
  }

  /** Pending rows per channel: the outbox depth gauge. */
  async depth(): Promise<Record<OutboxChannel, number>> {
    const rows = await this.db
      .selectFrom('outbox')
      .select((eb) => ['channel', eb.fn.countAll<number | string>().as('n')])
      .where('status', '=', 'pending')
      .groupBy('channel')
      .execute();
    const out: Record<OutboxChannel, number> = { mail: 0, webhook: 0 };
    for (const r of rows) if (r.channel === 'mail' || r.channel === 'webhook') out[r.channel] = Number(r.n);
    return out;
  }
}
