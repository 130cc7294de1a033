import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DbDriver } from '../config.js';
import type { Database } from '../db/schema.js';
import type { TagInput } from '../domain/tags.js';
import { listedBy } from './access.js';
import { ilike, startsWith } from './sql.js';
import type { Clock, Executor, Tag, Viewer } from './types.js';

export interface TagCount extends Tag {
  linkCount: number;
}

export class TagStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly driver: DbDriver,
    private readonly now: Clock,
  ) {}

  /**
   * Creates missing tags by slug and returns every tag's id. A concurrent
   * insert of the same tag resolves to the existing row: the upsert ignores
   * the conflict (INSERT IGNORE on MySQL, ON CONFLICT DO NOTHING elsewhere).
   */
  async ensure(tags: readonly TagInput[], db: Executor): Promise<Map<string, string>> {
    const ids = new Map<string, string>();
    if (tags.length === 0) return ids;
    const slugs = tags.map((t) => t.slug);
    const now = this.now();
    const rows = tags.map((t) => ({ id: randomUUID(), name: t.name, slug: t.slug, created_at: now }));
    const insert = db.insertInto('tags').values(rows);
    await (this.driver === 'mysql' ? insert.ignore() : insert.onConflict((oc) => oc.column('slug').doNothing())).execute();
    // On MySQL a plain read inside a transaction sees its snapshot, which may
    // predate a tag another transaction just committed (the one INSERT IGNORE
    // skipped); a locking read sees the latest committed row.
    const select = db.selectFrom('tags').select(['id', 'slug']).where('slug', 'in', slugs);
    const found = await (this.driver === 'mysql' ? select.forUpdate() : select).execute();
    for (const r of found) ids.set(r.slug, r.id);
    const missing = slugs.filter((slug) => !ids.has(slug));
    if (missing.length > 0) throw new Error(`tags not found after insert: ${missing.join(', ')}`);
    return ids;
  }

  /**
   * Replaces a link's whole tag set (call inside the link's transaction).
   * `fresh`: the link was inserted in this transaction and has no tags yet.
   * Skipping the DELETE then matters on MySQL, where deleting a missing key
   * takes a gap lock that deadlocks two concurrent creates at their inserts.
   */
  async setForLink(linkId: string, tags: readonly TagInput[], db: Executor, opts: { fresh?: boolean } = {}): Promise<void> {
    if (!opts.fresh) await db.deleteFrom('link_tags').where('link_id', '=', linkId).execute();
    if (tags.length === 0) return;
    const ids = await this.ensure(tags, db);
    await db
      .insertInto('link_tags')
      .values(tags.map((t) => ({ link_id: linkId, tag_id: ids.get(t.slug)! })))
      .execute();
  }

  /** Tags of many links at once, each list by name. */
  async forLinks(linkIds: readonly string[], db: Executor = this.db): Promise<Map<string, Tag[]>> {
    const out = new Map<string, Tag[]>();
    if (linkIds.length === 0) return out;
    const rows = await db
      .selectFrom('link_tags')
      .innerJoin('tags', 'tags.id', 'link_tags.tag_id')
      .select(['link_tags.link_id', 'tags.id', 'tags.name', 'tags.slug'])
      .where('link_tags.link_id', 'in', [...new Set(linkIds)])
      .orderBy('tags.name')
      .orderBy('tags.slug')
      .execute();
    for (const r of rows) {
      const list = out.get(r.link_id) ?? [];
      list.push({ id: r.id, name: r.name, slug: r.slug });
      out.set(r.link_id, list);
    }
    return out;
  }

  async findBySlug(slug: string): Promise<Tag | null> {
    const r = await this.db.selectFrom('tags').select(['id', 'name', 'slug']).where('slug', '=', slug).executeTakeFirst();
    return r ?? null;
  }

  /**
   * Tags with the number of links the viewer may discover, omitting tags with
   * none (docs/links.md#tags, docs/links.md#visibility). An expired or archived link counts only for those
   * who hold it (owners, co-owners, share recipients; admins hold every link),
   * exactly the links the tag's page lists for them, so card and page agree.
   */
  async listWithCounts(viewer: Viewer, opts: { prefix?: string; limit?: number } = {}): Promise<TagCount[]> {
    let q = this.db
      .selectFrom('tags')
      .innerJoin('link_tags', 'link_tags.tag_id', 'tags.id')
      .innerJoin('links', 'links.id', 'link_tags.link_id')
      .select((eb) => ['tags.id', 'tags.name', 'tags.slug', eb.fn.count<number>('links.id').as('link_count')])
      .where(listedBy(viewer, this.now()))
      .groupBy(['tags.id', 'tags.name', 'tags.slug'])
      .orderBy('tags.name')
      .orderBy('tags.id');
    if (opts.prefix !== undefined) q = q.where(ilike('tags.name', startsWith(opts.prefix)));
    if (opts.limit !== undefined) q = q.limit(opts.limit);
    const rows = await q.execute();
    return rows.map((r) => ({ id: r.id, name: r.name, slug: r.slug, linkCount: Number(r.link_count) }));
  }

  /**
   * One keyset page of tags by name then id, each with the number of links
   * carrying it that the viewer may discover (docs/api.md#tag-endpoints): public, owned,
   * co-owned or shared — every link for admins. Expired and archived links count only for
   * those who hold them, as on the tag browser; tags with no such link are left out.
   */
  async page(
    viewer: Viewer,
    opts: { after?: { name: string; id: string }; limit: number },
  ): Promise<{ tags: TagCount[]; hasMore: boolean }> {
    let q = this.db
      .selectFrom('tags')
      .innerJoin('link_tags', 'link_tags.tag_id', 'tags.id')
      .innerJoin('links', 'links.id', 'link_tags.link_id')
      .select((eb) => ['tags.id', 'tags.name', 'tags.slug', eb.fn.count<number>('links.id').as('link_count')])
      .where(listedBy(viewer, this.now()));
    const after = opts.after;
    if (after) {
      q = q.where((eb) =>
        eb.or([eb('tags.name', '>', after.name), eb.and([eb('tags.name', '=', after.name), eb('tags.id', '>', after.id)])]),
      );
    }
    const rows = await q
      .groupBy(['tags.id', 'tags.name', 'tags.slug'])
      .orderBy('tags.name')
      .orderBy('tags.id')
      .limit(opts.limit + 1)
      .execute();
    return {
      tags: rows.slice(0, opts.limit).map((r) => ({ id: r.id, name: r.name, slug: r.slug, linkCount: Number(r.link_count) })),
      hasMore: rows.length > opts.limit,
    };
  }
}
