import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { isUniqueViolation } from './dbErrors.js';
import type { Clock } from './types.js';

/** A stored first answer. */
export interface KeptAnswer {
  status: number;
  contentType: string;
  location: string | null;
  body: string;
}

export type Claim =
  /** The key is this request's now: answer it, then `complete` or `release`. */
  | { kind: 'claimed' }
  /** The same request was answered before: send this again. */
  | { kind: 'replay'; answer: KeptAnswer }
  /** The key was used for another request. */
  | { kind: 'mismatch' }
  /** The first request with this key is still being answered. */
  | { kind: 'pending' };

/** How long a key is kept (docs/api.md#safe-retries). */
export const KEY_LIFETIME_MS = 24 * 60 * 60 * 1000;
/** A first request that never finished (its process died) frees its key after this. */
export const ABANDONED_AFTER_MS = 60_000;

/**
 * Idempotency keys per user (docs/api.md#safe-retries). The primary key (user, key) settles a
 * race between two requests, or two replicas, with the same key: one inserts, the other reads
 * what the first left.
 */
export class IdempotencyStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly now: Clock,
  ) {}

  async claim(userId: string, key: string, requestHash: string): Promise<Claim> {
    const now = this.now();
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        await this.db
          .insertInto('idempotency_keys')
          .values({
            user_id: userId,
            idem_key: key,
            request_hash: requestHash,
            status: 0,
            content_type: '',
            location: null,
            body: '',
            created_at: now,
          })
          .execute();
        return { kind: 'claimed' };
      } catch (e) {
        if (!isUniqueViolation(e)) throw e;
      }
      const row = await this.db
        .selectFrom('idempotency_keys')
        .selectAll()
        .where('user_id', '=', userId)
        .where('idem_key', '=', key)
        .executeTakeFirst();
      if (!row) continue; // released or purged in between: try to claim again
      const createdAt = Number(row.created_at);
      const stale = createdAt <= now - KEY_LIFETIME_MS || (Number(row.status) === 0 && createdAt <= now - ABANDONED_AFTER_MS);
      if (stale) {
        // Expired, or left by a request that never finished: the key is free again.
        await this.db
          .deleteFrom('idempotency_keys')
          .where('user_id', '=', userId)
          .where('idem_key', '=', key)
          .where('created_at', '=', createdAt)
          .execute();
        continue;
      }
      if (row.request_hash !== requestHash) return { kind: 'mismatch' };
      if (Number(row.status) === 0) return { kind: 'pending' };
      return {
        kind: 'replay',
        answer: { status: Number(row.status), contentType: row.content_type, location: row.location, body: row.body },
      };
    }
    return { kind: 'pending' };
  }

  /** Keeps the answer a claimed key's request got. */
  async complete(userId: string, key: string, answer: KeptAnswer): Promise<void> {
    await this.db
      .updateTable('idempotency_keys')
      .set({ status: answer.status, content_type: answer.contentType, location: answer.location, body: answer.body })
      .where('user_id', '=', userId)
      .where('idem_key', '=', key)
      .where('status', '=', 0)
      .execute();
  }

  /** Frees a claimed key whose request failed in a way a retry may fix. */
  async release(userId: string, key: string): Promise<void> {
    await this.db
      .deleteFrom('idempotency_keys')
      .where('user_id', '=', userId)
      .where('idem_key', '=', key)
      .where('status', '=', 0)
      .execute();
  }

  /** Deletes keys past their lifetime; answers how many. */
  async purge(): Promise<number> {
    const r = await this.db
      .deleteFrom('idempotency_keys')
      .where('created_at', '<=', this.now() - KEY_LIFETIME_MS)
      .executeTakeFirst();
    return Number(r.numDeletedRows);
  }
}
