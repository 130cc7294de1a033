import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { AppError } from '../domain/errors.js';
import { isUniqueViolation, translateDbError } from './dbErrors.js';
import type { Executor } from './types.js';

/**
 * The one namespace of slugs and aliases (docs/links.md#aliases): every name
 * of every link is a row of `link_names`, whose unique key decides between
 * writers that race for a name. The slug's row is written with the link
 * (`LinkStore.insert`); this store reads names and replaces aliases.
 */
export class LinkNameStore {
  constructor(private readonly db: Kysely<Database>) {}

  /** Each link's aliases, sorted, in one query whatever the list length. */
  async forLinks(ids: readonly string[], db: Executor = this.db): Promise<Map<string, string[]>> {
    const out = new Map<string, string[]>();
    if (ids.length === 0) return out;
    const rows = await db
      .selectFrom('link_names')
      .select(['link_id', 'name'])
      .where('link_id', 'in', [...new Set(ids)])
      .where('is_alias', '=', 1)
      .orderBy('name')
      .execute();
    for (const r of rows) {
      const list = out.get(r.link_id);
      if (list) list.push(r.name);
      else out.set(r.link_id, [r.name]);
    }
    return out;
  }

  /**
   * The link holding each of `names` as its slug or an alias. Slugs are read
   * from `links` too, so a link row written without its name row (by hand, or
   * by an older tool) still keeps its slug.
   */
  async holders(names: readonly string[], db: Executor = this.db): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    if (names.length === 0) return out;
    const wanted = [...new Set(names)];
    const [named, slugs] = await Promise.all([
      db.selectFrom('link_names').select(['name', 'link_id']).where('name', 'in', wanted).execute(),
      db.selectFrom('links').select(['slug', 'id']).where('slug', 'in', wanted).execute(),
    ]);
    for (const r of named) out.set(r.name, r.link_id);
    for (const r of slugs) out.set(r.slug, r.id);
    return out;
  }

  /**
   * Makes `aliases` the link's whole alias set: the ones it no longer has are
   * deleted first, so a name moved between two links in one change is free
   * again. A name another link holds is ALIAS_CONFLICT, however the race went.
   */
  async setAliases(linkId: string, aliases: readonly string[], tx: Executor): Promise<void> {
    let q = tx.deleteFrom('link_names').where('link_id', '=', linkId).where('is_alias', '=', 1);
    if (aliases.length > 0) q = q.where('name', 'not in', [...aliases]);
    await q.execute();
    const kept = new Set((await this.forLinks([linkId], tx)).get(linkId) ?? []);
    // One row at a time, so a refusal names the alias another link holds.
    for (const name of aliases) {
      if (kept.has(name)) continue;
      try {
        await tx.insertInto('link_names').values({ name, link_id: linkId, is_alias: 1 }).execute();
      } catch (e) {
        if (isUniqueViolation(e)) throw aliasTaken(name);
        translateDbError(e);
      }
    }
  }
}

/** The refusal of a name another link already holds as its slug or an alias. */
export function aliasTaken(name: string): AppError {
  return new AppError('ALIAS_CONFLICT', `alias is already taken: "${name}"`, 'aliases');
}
