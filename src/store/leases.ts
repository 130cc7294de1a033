import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { isUniqueViolation } from './dbErrors.js';
import type { Clock } from './types.js';

/**
 * Database leases (docs/server.md#background-jobs-and-leases): one conditional write decides which
 * replica runs a periodic job. Insert when absent (the primary key settles a
 * race), else take it over only if we hold it or it has expired.
 */
export class LeaseStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly now: Clock,
  ) {}

  /** Takes or renews `name` for `ttlMs`; true when `holder` now holds it. */
  async acquire(name: string, holder: string, ttlMs: number): Promise<boolean> {
    const now = this.now();
    const r = await this.db
      .updateTable('job_leases')
      .set({ holder, expires_at: now + ttlMs })
      .where('name', '=', name)
      .where((eb) => eb.or([eb('holder', '=', holder), eb('expires_at', '<=', now)]))
      .executeTakeFirst();
    if (Number(r.numUpdatedRows) > 0) return true;
    try {
      await this.db
        .insertInto('job_leases')
        .values({ name, holder, expires_at: now + ttlMs, last_run_at: null })
        .execute();
      return true;
    } catch (e) {
      if (isUniqueViolation(e)) return false;
      throw e;
    }
  }

  /** When the job last ran anywhere (null: never). */
  async lastRunAt(name: string): Promise<number | null> {
    const r = await this.db.selectFrom('job_leases').select('last_run_at').where('name', '=', name).executeTakeFirst();
    return r?.last_run_at === null || r?.last_run_at === undefined ? null : Number(r.last_run_at);
  }

  /** Stamps a run, only while still the holder, so a replica that lost the lease cannot claim it. */
  async markRun(name: string, holder: string, at: number): Promise<boolean> {
    const r = await this.db
      .updateTable('job_leases')
      .set({ last_run_at: at })
      .where('name', '=', name)
      .where('holder', '=', holder)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  /** Lets another replica take over at once; `last_run_at` is kept so the schedule carries on. */
  async release(name: string, holder: string): Promise<void> {
    await this.db.updateTable('job_leases').set({ expires_at: 0 }).where('name', '=', name).where('holder', '=', holder).execute();
  }

  async holderOf(name: string): Promise<string | null> {
    const r = await this.db.selectFrom('job_leases').select(['holder', 'expires_at']).where('name', '=', name).executeTakeFirst();
    return r && Number(r.expires_at) > this.now() ? r.holder : null;
  }
}
