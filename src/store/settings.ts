import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { isUniqueViolation } from './dbErrors.js';

/** Per-install values every replica shares (docs/server.md#background-jobs-and-leases). */
export class SettingsStore {
  constructor(private readonly db: Kysely<Database>) {}

  async get(name: string): Promise<string | null> {
    const r = await this.db.selectFrom('settings').select('value').where('name', '=', name).executeTakeFirst();
    return r?.value ?? null;
  }

  /**
   * Returns the stored value, creating it on first use. Replicas starting at
   * once race on the primary key; the loser reads the winner's value.
   */
  async getOrCreate(name: string, create: () => string): Promise<string> {
    const existing = await this.get(name);
    if (existing !== null) return existing;
    try {
      await this.db.insertInto('settings').values({ name, value: create() }).execute();
    } catch (e) {
      if (!isUniqueViolation(e)) throw e;
    }
    return (await this.get(name))!;
  }

  /** The HMAC key for click IP hashes: 32 random bytes, hex; never logged or exposed. */
  ipHashSecret(): Promise<string> {
    return this.getOrCreate('ip_hash_secret', () => randomBytes(32).toString('hex'));
  }
}
