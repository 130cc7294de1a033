import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { newStateLinkId } from '../domain/statePayload.js';
import { isBusy, isUniqueViolation } from './dbErrors.js';
import type { Clock } from './types.js';

/** A stored app-state link. `expiresAt` is null once the link has been opened. */
export interface StateLink {
  id: string;
  payload: string;
  createdAt: number;
  expiresAt: number | null;
}

export type CreateOutcome =
  /** A new row with a new id. */
  | { kind: 'created'; id: string }
  /** Someone stored the same payload first (a concurrent post); theirs is the link. */
  | { kind: 'existing'; id: string }
  /** Over the storage cap even after sweeping expired links. */
  | { kind: 'full' }
  /** Every id drawn was taken. */
  | { kind: 'exhausted' };

/** Drawn ids tried before giving up (docs/state-links.md#creating-a-state-link: up to eight draws). */
export const MAX_ID_DRAWS = 8;
/** Retries of a write that lost a lock (MySQL deadlocks between two replacing posts). */
const MAX_BUSY_RETRIES = 3;
/** How long a counted total of stored bytes is trusted before it is counted again. */
const USAGE_TTL_MS = 10_000;

const isLive = (expiresAt: number | null, now: number): boolean => expiresAt === null || expiresAt > now;
const num = (v: number | string | bigint | null): number | null => (v === null ? null : Number(v));

/**
 * App-state short links (docs/state-links.md). Expiry is a fact read against the
 * clock: a row whose `expires_at` has passed reads as missing at once, before
 * the sweep deletes it.
 */
export class StateLinkStore {
  /** The id source; replaceable so collisions can be exercised. */
  drawId: () => string = newStateLinkId;
  /**
   * Stored bytes as last counted plus what this process has added since. Other
   * replicas' inserts are seen when it is recounted, so on several replicas the
   * cap can be overshot by what they store within USAGE_TTL_MS.
   */
  private usage: { bytes: number; countedAt: number } | null = null;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly now: Clock,
  ) {}

  /** A live link, for reading without opening it. */
  async findLive(id: string): Promise<StateLink | null> {
    const r = await this.db
      .selectFrom('state_links')
      .select(['id', 'payload', 'created_at', 'expires_at'])
      .where('id', '=', id)
      .executeTakeFirst();
    if (!r) return null;
    const link = { id: r.id, payload: r.payload, createdAt: Number(r.created_at), expiresAt: num(r.expires_at) };
    return isLive(link.expiresAt, this.now()) ? link : null;
  }

  /**
   * Opens a link: returns its payload and, on the first open, clears its
   * expiry with one conditional UPDATE, so concurrent first opens both succeed.
   */
  async open(id: string): Promise<string | null> {
    const link = await this.findLive(id);
    if (!link) return null;
    if (link.expiresAt === null) return link.payload;
    const now = this.now();
    const r = await this.db
      .updateTable('state_links')
      .set({ expires_at: null })
      .where('id', '=', id)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    if (Number(r.numUpdatedRows) > 0) return link.payload;
    // Nothing updated: another open got there first (fine), or a sweep with a
    // later clock removed the row in between (then it is gone).
    return (await this.findLive(id))?.payload ?? null;
  }

  /**
   * The live link already holding this payload, or null. A pending one gets
   * its expiry moved to now + `ttlMs`; an opened one never expires.
   */
  async dedupe(sha256: string, ttlMs: number): Promise<string | null> {
    const r = await this.db.selectFrom('state_links').select(['id', 'expires_at']).where('payload_sha256', '=', sha256).executeTakeFirst();
    if (!r) return null;
    const expiresAt = num(r.expires_at);
    const now = this.now();
    if (!isLive(expiresAt, now)) return null;
    if (expiresAt === null) return r.id;
    const u = await this.db
      .updateTable('state_links')
      .set({ expires_at: now + ttlMs })
      .where('id', '=', r.id)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    if (Number(u.numUpdatedRows) > 0) return r.id;
    return (await this.findLive(r.id))?.id ?? null;
  }

  /**
   * Stores a payload that `dedupe` did not find. An expired row with the same
   * payload is deleted in the same transaction, so the payload comes back
   * under a new id. Past the storage cap, expired links are swept first.
   */
  async create(payload: string, sha256: string, ttlMs: number, maxBytes: number): Promise<CreateOutcome> {
    const bytes = Buffer.byteLength(payload, 'utf8');
    if (!(await this.hasRoom(bytes, maxBytes))) return { kind: 'full' };
    let busy = 0;
    for (let draw = 0; draw < MAX_ID_DRAWS;) {
      const id = this.drawId();
      const now = this.now();
      try {
        await this.db.transaction().execute(async (trx) => {
          await trx.deleteFrom('state_links').where('payload_sha256', '=', sha256).where('expires_at', '<=', now).execute();
          await trx
            .insertInto('state_links')
            .values({ id, payload, payload_sha256: sha256, payload_bytes: bytes, created_at: now, expires_at: now + ttlMs })
            .execute();
        });
        if (this.usage) this.usage.bytes += bytes;
        return { kind: 'created', id };
      } catch (e) {
        if (isBusy(e) && busy++ < MAX_BUSY_RETRIES) continue;
        if (!isUniqueViolation(e)) throw e;
        // Either the payload was stored concurrently, or the id was taken.
        const existing = await this.dedupe(sha256, ttlMs);
        if (existing !== null) return { kind: 'existing', id: existing };
        draw++;
      }
    }
    return { kind: 'exhausted' };
  }

  /** Total payload bytes stored, expired rows included (they occupy space until swept). */
  async storedBytes(): Promise<number> {
    const r = await this.db
      .selectFrom('state_links')
      .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('payload_bytes'), eb.lit(0)).as('total'))
      .executeTakeFirstOrThrow();
    return Number(r.total);
  }

  private async hasRoom(bytes: number, maxBytes: number): Promise<boolean> {
    const now = this.now();
    const u = this.usage;
    if (u && now - u.countedAt < USAGE_TTL_MS && now >= u.countedAt && u.bytes + bytes <= maxBytes) return true;
    let used = await this.storedBytes();
    if (used + bytes > maxBytes && (await this.sweepExpired()) > 0) used = await this.storedBytes();
    this.usage = { bytes: used, countedAt: now };
    return used + bytes <= maxBytes;
  }

  /**
   * Deletes expired links in bounded batches: select a batch of ids, delete
   * those ids (re-checking expiry, so a link opened meanwhile survives).
   */
  async sweepExpired(opts: { batchSize?: number; signal?: AbortSignal } = {}): Promise<number> {
    const batchSize = opts.batchSize ?? 500;
    let total = 0;
    for (;;) {
      if (opts.signal?.aborted) break;
      const now = this.now();
      const ids = (await this.db.selectFrom('state_links').select('id').where('expires_at', '<=', now).limit(batchSize).execute()).map(
        (r) => r.id,
      );
      if (ids.length === 0) break;
      const r = await this.db.deleteFrom('state_links').where('id', 'in', ids).where('expires_at', '<=', now).executeTakeFirst();
      total += Number(r.numDeletedRows);
      if (ids.length < batchSize) break;
    }
    if (total > 0) this.usage = null;
    return total;
  }
}
