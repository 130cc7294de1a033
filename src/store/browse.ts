import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { activeAt, matchesSearch, ownedBy } from './access.js';
import type { OwnerStore } from './owners.js';
import { LINK_COLUMNS, toLink } from './rows.js';
import type { LinkNameStore } from './linkNames.js';
import { withLinkDetails } from './links.js';
import type { TagCount, TagStore } from './tags.js';
import type { Clock, Link, LinkView, Viewer } from './types.js';

/**
 * Page-shaped reads of the web UI that the keyset `links.list` cannot serve:
 * the public browser and profiles (newest first, numbered pages with a total,
 * docs/web-ui.md#public-browser-and-profiles) and the dashboard's tag chips.
 */
export class BrowseStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly now: Clock,
    private readonly tags: TagStore,
    private readonly owners: OwnerStore,
    private readonly names: LinkNameStore,
  ) {}

  /** Tags, owners and aliases for a page, the shape every link list has. */
  private withDetails(links: readonly Link[]): Promise<LinkView[]> {
    return withLinkDetails(links, { tags: this.tags, owners: this.owners, names: this.names });
  }

  /**
   * Public, active links, newest first (docs/web-ui.md#public-browser-and-profiles): optionally only those
   * whose primary owner is `primaryOwnerId` (profiles, docs/web-ui.md#public-browser-and-profiles) and matching `q`
   * by the one search rule (`matchesSearch`).
   */
  async publicLinks(opts: {
    q?: string;
    primaryOwnerId?: string;
    offset: number;
    limit: number;
  }): Promise<{ links: LinkView[]; total: number }> {
    let base = this.db.selectFrom('links').where('links.visibility', '=', 'public').where(activeAt(this.now()));
    if (opts.primaryOwnerId !== undefined) {
      const owner = opts.primaryOwnerId;
      base = base.where((eb) =>
        eb.exists(
          eb
            .selectFrom('link_owners')
            .select('link_owners.link_id')
            .whereRef('link_owners.link_id', '=', 'links.id')
            .where('link_owners.user_id', '=', owner)
            .where('link_owners.is_primary', '=', 1),
        ),
      );
    }
    if (opts.q) base = base.where(matchesSearch(opts.q));
    const [count, rows] = await Promise.all([
      base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
      base
        .select(LINK_COLUMNS)
        .orderBy('links.created_at', 'desc')
        .orderBy('links.id', 'desc')
        .limit(opts.limit)
        .offset(opts.offset)
        .execute(),
    ]);
    return { links: await this.withDetails(rows.map(toLink)), total: Number(count.n) };
  }

  /**
   * The dashboard's tag chips: tags on the links the tag filter can show —
   * the viewer's own and co-owned links, every link for an admin — so a chip
   * never names a tag that sits only on links hidden from the viewer.
   */
  async dashboardTags(viewer: Viewer): Promise<TagCount[]> {
    if (!viewer) return [];
    let q = this.db
      .selectFrom('tags')
      .innerJoin('link_tags', 'link_tags.tag_id', 'tags.id')
      .innerJoin('links', 'links.id', 'link_tags.link_id')
      .select((eb) => ['tags.id', 'tags.name', 'tags.slug', eb.fn.count<number>('links.id').as('link_count')])
      .groupBy(['tags.id', 'tags.name', 'tags.slug'])
      .orderBy('tags.name')
      .orderBy('tags.id');
    q = q.where(ownedBy(viewer));
    const rows = await q.execute();
    return rows.map((r) => ({ id: r.id, name: r.name, slug: r.slug, linkCount: Number(r.link_count) }));
  }

  /** Counts for the admin overview cards. */
  async adminCounts(): Promise<{ users: number; links: number; keywords: number }> {
    const count = (table: 'users' | 'links' | 'keywords') =>
      this.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
        .then((r) => Number(r.n));
    const [users, links, keywords] = await Promise.all([count('users'), count('links'), count('keywords')]);
    return { users, links, keywords };
  }
}
