import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Executor } from './types.js';

/**
 * Which expiry values were already announced (docs/notifications.md#expiry):
 * `expiring` to the owners a week ahead, `expired` to webhooks once the time
 * has passed. Keyed by the expiry value, so a link renewed with a new expiry
 * is announced again, and a row goes with its link.
 */

export type ExpiryStage = 'expiring' | 'expired';

export interface ExpiringLink {
  id: string;
  slug: string;
  expiresAt: number;
}

export class ExpiryNoticeStore {
  constructor(private readonly db: Kysely<Database>) {}

  /** Unarchived links whose expiry lies in (from, to] and was not announced at `stage` yet, soonest first. */
  async due(stage: ExpiryStage, from: number, to: number, limit: number): Promise<ExpiringLink[]> {
    const rows = await this.db
      .selectFrom('links')
      .leftJoin('expiry_notices', (join) =>
        join
          .onRef('expiry_notices.link_id', '=', 'links.id')
          .onRef('expiry_notices.expires_at', '=', 'links.expires_at')
          .on('expiry_notices.stage', '=', stage),
      )
      .select(['links.id', 'links.slug', 'links.expires_at'])
      .where('links.expires_at', '>', from)
      .where('links.expires_at', '<=', to)
      .where('links.archived_at', 'is', null)
      .where('expiry_notices.link_id', 'is', null)
      .orderBy('links.expires_at')
      .orderBy('links.id')
      .limit(limit)
      .execute();
    return rows.map((r) => ({ id: r.id, slug: r.slug, expiresAt: Number(r.expires_at) }));
  }

  /** Records the announcement in the transaction that makes it. */
  async mark(linkId: string, stage: ExpiryStage, expiresAt: number, at: number, tx: Executor): Promise<void> {
    await tx.insertInto('expiry_notices').values({ link_id: linkId, stage, expires_at: expiresAt, created_at: at }).execute();
  }
}
