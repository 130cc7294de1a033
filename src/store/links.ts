import type { Insertable, Kysely, Updateable } from 'kysely';
import type { DbDriver } from '../config.js';
import type { Visibility } from '../domain/caps.js';
import type { Database, LinksTable } from '../db/schema.js';
import { AppError } from '../domain/errors.js';
import {
  activeAt,
  discoverableBy,
  hasGroupOwnerRow,
  hasOwnerOrShareRow,
  hasOwnerRow,
  hasShareRow,
  listedBy,
  matchesSearch,
} from './access.js';
import { VIA_KYSELY, type HotLookups, type MaybePromise } from './hotQuery.js';
import { LinkLookups, type KeywordAndLongest, type KeywordAndSlug, type NamedTarget, type ResolveTarget } from './linkLookups.js';
import { isUniqueViolation, translateDbError } from './dbErrors.js';
import type { LinkNameStore } from './linkNames.js';
import type { OwnerStore } from './owners.js';
import { markDaysOfLinks } from './rollupMarks.js';
import { LINK_COLUMNS, toLink } from './rows.js';
import type { TagStore } from './tags.js';
import type { Clock, Executor, Link, LinkView, Viewer } from './types.js';
import { slugKey } from '../domain/slug.js';

/** Columns of one link to write; absent ones are left as stored. */
export interface LinkWrite {
  updatedAt: number;
  url?: string;
  title?: string;
  description?: string;
  visibility?: Visibility;
  expiresAt?: number | null;
  archivedAt?: number | null;
  healthChecksDisabled?: boolean;
  forwardPathAndQuery?: boolean;
  /** Null clears it. */
  defaultUrl?: string | null;
}

function toLinkRow(l: Link): Insertable<LinksTable> {
  return {
    id: l.id,
    slug: l.slug,
    // Set once, as migration 00029 filled it for older links: golink's matching looks it up.
    slug_key: slugKey(l.slug),
    url: l.url,
    title: l.title,
    description: l.description,
    visibility: l.visibility,
    created_at: l.createdAt,
    updated_at: l.updatedAt,
    expires_at: l.expiresAt,
    archived_at: l.archivedAt,
    health_checks_disabled: l.healthChecksDisabled ? 1 : 0,
    forward_path_and_query: l.forwardPathAndQuery ? 1 : 0,
    default_url: l.defaultUrl,
  };
}

/**
 * Which links a list shows. `owned`: the viewer owns or co-owns them;
 * `shared`: shared with the viewer; `member`: either of the two (the REST
 * link list); `groups`: owned by a group the viewer is a member of (the
 * dashboard's "links of my groups"); `public`: public and active (browsing);
 * `discoverable`: the discovery predicate; `listed`: what a tag lists (`listedBy`:
 * discoverable and active, or held by the viewer); `all`: every link (admin surfaces).
 */
export type LinkScope = 'owned' | 'shared' | 'member' | 'groups' | 'public' | 'discoverable' | 'listed' | 'all';

/** How a numbered page of links is ordered: by slug, or most recently clicked first. */
export type LinkPageOrder = 'slug' | 'recent';

export interface LinkListQuery {
  scope: LinkScope;
  viewer: Viewer;
  /** Search text, matched by the one rule of `matchesSearch`. */
  q?: string;
  tagSlug?: string;
  visibility?: Visibility;
  /** Only links whose URL equals this (API `?url=`). */
  url?: string;
  activeOnly?: boolean;
  /** Keyset position: rows strictly after this slug. */
  afterSlug?: string;
  limit?: number;
}

/** The stores a list of links takes its tags, owners and aliases from. */
export interface LinkDetailStores {
  tags: TagStore;
  owners: OwnerStore;
  names: LinkNameStore;
}

/** Links with their tags, owners and aliases, in three queries whatever the list length: every list's one way to build LinkViews. */
export async function withLinkDetails(links: readonly Link[], from: LinkDetailStores, db?: Executor): Promise<LinkView[]> {
  const ids = links.map((l) => l.id);
  const [tags, owners, aliases] = await Promise.all([
    from.tags.forLinks(ids, db),
    from.owners.forLinks(ids, db),
    from.names.forLinks(ids, db),
  ]);
  return links.map((l) => ({ ...l, tags: tags.get(l.id) ?? [], owners: owners.get(l.id) ?? [], aliases: aliases.get(l.id) ?? [] }));
}

export class LinkStore {
  private readonly lookups: LinkLookups;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly driver: DbDriver,
    private readonly now: Clock,
    private readonly tags: TagStore,
    private readonly owners: OwnerStore,
    private readonly names: LinkNameStore,
    hot: HotLookups = VIA_KYSELY,
  ) {
    this.lookups = new LinkLookups(db, hot);
  }

  /** The link a slug names, for the resolver (LinkLookups): synchronous on an SQLite file. */
  lookupForResolve(slug: string): MaybePromise<ResolveTarget | null> {
    return this.lookups.lookupForResolve(slug);
  }

  /** The link a name leads to by its aliases, once the slug lookup has missed (LinkLookups). */
  lookupAliasForResolve(name: string): MaybePromise<ResolveTarget | null> {
    return this.lookups.lookupAliasForResolve(name);
  }

  /** The link the longest of a path's prefixes names, slug or alias (LinkLookups.lookupLongestForResolve). */
  lookupLongestForResolve(names: readonly string[]): MaybePromise<NamedTarget | null> {
    return this.lookups.lookupLongestForResolve(names);
  }

  /** A keyword's template and the link the longest of `names` leads to, in one query (LinkLookups). */
  lookupKeywordAndLongest(keyword: string, names: readonly string[]): MaybePromise<KeywordAndLongest> {
    return this.lookups.lookupKeywordAndLongest(keyword, names);
  }

  /** The link whose slug without hyphens is `key` (LinkLookups.lookupHyphenlessForResolve). */
  lookupHyphenlessForResolve(key: string): MaybePromise<ResolveTarget | null> {
    return this.lookups.lookupHyphenlessForResolve(key);
  }

  /** A keyword's template and the link a slug names, in one query (LinkLookups). */
  lookupKeywordAndSlug(keyword: string, slug: string): MaybePromise<KeywordAndSlug> {
    return this.lookups.lookupKeywordAndSlug(keyword, slug);
  }

  async get(id: string, db: Executor = this.db): Promise<Link | null> {
    const r = await db.selectFrom('links').select(LINK_COLUMNS).where('id', '=', id).executeTakeFirst();
    return r ? toLink(r) : null;
  }

  /** Which of these ids still name a link (the audit marks the others deleted). */
  async existingIds(ids: readonly string[], db: Executor = this.db): Promise<Set<string>> {
    const unique = [...new Set(ids)];
    if (unique.length === 0) return new Set();
    const rows = await db.selectFrom('links').select('id').where('id', 'in', unique).execute();
    return new Set(rows.map((r) => r.id));
  }

  async getBySlug(slug: string, db: Executor = this.db): Promise<Link | null> {
    const r = await db.selectFrom('links').select(LINK_COLUMNS).where('slug', '=', slug).executeTakeFirst();
    return r ? toLink(r) : null;
  }

  /** Whether a link already has this name, as its slug or as an alias (docs/links.md#aliases). */
  /** The link a name belongs to, as its slug or one of its aliases (docs/links.md#aliases). */
  async getByName(name: string, db: Executor = this.db): Promise<Link | null> {
    const bySlug = await this.getBySlug(name, db);
    if (bySlug) return bySlug;
    const r = await db
      .selectFrom('link_names')
      .innerJoin('links', 'links.id', 'link_names.link_id')
      .select(LINK_COLUMNS)
      .where('link_names.name', '=', name)
      .where('link_names.is_alias', '=', 1)
      .executeTakeFirst();
    return r ? toLink(r) : null;
  }

  async slugTaken(slug: string, db: Executor = this.db): Promise<boolean> {
    return (await this.names.holders([slug], db)).size > 0;
  }

  /** Attaches tags, owners and aliases to links in three queries, whatever the list length. */
  async withDetails(links: readonly Link[], db: Executor = this.db): Promise<LinkView[]> {
    return withLinkDetails(links, { tags: this.tags, owners: this.owners, names: this.names }, db);
  }

  async view(id: string, db: Executor = this.db): Promise<LinkView | null> {
    const link = await this.get(id, db);
    return link ? (await this.withDetails([link], db))[0]! : null;
  }

  /** The link row inside a transaction that is about to change it, locked against concurrent writers where the database can. */
  async lockForChange(id: string, tx: Executor): Promise<Link | null> {
    const q = tx.selectFrom('links').select(LINK_COLUMNS).where('id', '=', id);
    // SQLite serialises writers itself and has no row locks to take.
    const r = await (this.driver === 'sqlite3' ? q : q.forUpdate()).executeTakeFirst();
    return r ? toLink(r) : null;
  }

  /**
   * Inserts a link row and its slug's place among all names; a slug taken as
   * another link's slug or alias is SLUG_CONFLICT (the unique keys decide races).
   */
  async insert(link: Link, tx: Executor): Promise<void> {
    try {
      await tx.insertInto('links').values(toLinkRow(link)).execute();
      await tx.insertInto('link_names').values({ name: link.slug, link_id: link.id, is_alias: 0 }).execute();
    } catch (e) {
      if (isUniqueViolation(e)) throw new AppError('SLUG_CONFLICT', 'slug is already taken', 'slug');
      translateDbError(e);
    }
  }

  /** Writes the given columns of one link. */
  async write(id: string, changes: LinkWrite, tx: Executor): Promise<void> {
    const set: Updateable<LinksTable> = { updated_at: changes.updatedAt };
    if (changes.url !== undefined) set.url = changes.url;
    if (changes.title !== undefined) set.title = changes.title;
    if (changes.description !== undefined) set.description = changes.description;
    if (changes.visibility !== undefined) set.visibility = changes.visibility;
    if (changes.expiresAt !== undefined) set.expires_at = changes.expiresAt;
    if (changes.archivedAt !== undefined) set.archived_at = changes.archivedAt;
    if (changes.healthChecksDisabled !== undefined) set.health_checks_disabled = changes.healthChecksDisabled ? 1 : 0;
    if (changes.forwardPathAndQuery !== undefined) set.forward_path_and_query = changes.forwardPathAndQuery ? 1 : 0;
    if (changes.defaultUrl !== undefined) set.default_url = changes.defaultUrl;
    await tx.updateTable('links').set(set).where('id', '=', id).execute();
  }

  /**
   * Deletes a link; owners, tags, shares, clicks and health rows cascade away.
   * The closed days its clicks lay on are marked dirty in the same
   * transaction: the instance-wide referrer rollup has no link to cascade
   * from (docs/analytics.md#rollups).
   */
  async delete(id: string, tx: Executor = this.db): Promise<boolean> {
    if (!tx.isTransaction) return this.db.transaction().execute((trx) => this.delete(id, trx));
    await markDaysOfLinks(tx, this.now(), [id]);
    const r = await tx.deleteFrom('links').where('id', '=', id).executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }

  async count(): Promise<number> {
    const r = await this.db
      .selectFrom('links')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(r.n);
  }

  /** The links a query selects, unordered and unpaged: what `list` and `page` share. */
  private selecting(query: Omit<LinkListQuery, 'afterSlug' | 'limit'>) {
    const { viewer } = query;
    // The scopes below are literal memberships: an admin's "owned" is what they own.
    const viewerId = viewer?.id ?? '';
    let q = this.db.selectFrom('links');
    switch (query.scope) {
      case 'owned':
        q = q.where(hasOwnerRow(viewerId));
        break;
      case 'shared':
        q = q.where(hasShareRow(viewerId));
        break;
      case 'member':
        q = q.where(hasOwnerOrShareRow(viewerId));
        break;
      case 'groups':
        q = q.where(hasGroupOwnerRow(viewerId));
        break;
      case 'public':
        q = q.where('links.visibility', '=', 'public').where(activeAt(this.now()));
        break;
      case 'discoverable':
        q = q.where(discoverableBy(viewer));
        break;
      case 'listed':
        q = q.where(listedBy(viewer, this.now()));
        break;
      case 'all':
        break;
    }
    if (query.activeOnly) q = q.where(activeAt(this.now()));
    if (query.visibility) q = q.where('links.visibility', '=', query.visibility);
    if (query.url !== undefined) q = q.where('links.url', '=', query.url);
    if (query.tagSlug !== undefined) {
      const tagSlug = query.tagSlug;
      q = q.where((eb) =>
        eb.exists(
          eb
            .selectFrom('link_tags')
            .innerJoin('tags', 'tags.id', 'link_tags.tag_id')
            .select('link_tags.link_id')
            .whereRef('link_tags.link_id', '=', 'links.id')
            .where('tags.slug', '=', tagSlug),
        ),
      );
    }
    if (query.q !== undefined && query.q !== '') q = q.where(matchesSearch(query.q));
    return q;
  }

  /** Keyset-paginated list by slug; fetches one extra row to know whether more exist. */
  async list(query: LinkListQuery): Promise<{ links: LinkView[]; hasMore: boolean }> {
    let q = this.selecting(query).select(LINK_COLUMNS);
    if (query.afterSlug !== undefined) q = q.where('links.slug', '>', query.afterSlug);
    const limit = query.limit ?? 50;
    const rows = await q
      .orderBy('links.slug')
      .limit(limit + 1)
      .execute();
    const hasMore = rows.length > limit;
    return { links: await this.withDetails(rows.slice(0, limit).map(toLink)), hasMore };
  }

  /**
   * One numbered page and how many links the query selects in all: the web UI's paged lists
   * ("51–56 of 56 links", docs/web-ui.md#paging). By slug, or `recent`: the newest retained
   * click first (the list's "Last clicked", read from the end of the per-link click index),
   * links never clicked after them, each tie by slug.
   */
  async page(
    query: Omit<LinkListQuery, 'afterSlug'>,
    offset: number,
    order: LinkPageOrder = 'slug',
  ): Promise<{ links: LinkView[]; total: number }> {
    const base = this.selecting(query);
    let rows = base.select(LINK_COLUMNS);
    if (order === 'recent') {
      // COALESCE to 0, not NULLS LAST: the three databases order NULL differently.
      rows = rows.orderBy(
        (eb) =>
          eb.fn.coalesce(
            eb
              .selectFrom('link_clicks')
              .select('link_clicks.clicked_at')
              .whereRef('link_clicks.link_id', '=', 'links.id')
              .orderBy('link_clicks.clicked_at', 'desc')
              .limit(1),
            eb.lit(0),
          ),
        'desc',
      );
    }
    const [count, found] = await Promise.all([
      base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
      rows
        .orderBy('links.slug')
        .limit(query.limit ?? 50)
        .offset(offset)
        .execute(),
    ]);
    return { links: await this.withDetails(found.map(toLink)), total: Number(count.n) };
  }

  /**
   * Links whose destination is exactly `url` that the viewer may discover
   * (their own, shared with them, or public; admins: all), newest first
   * (docs/api.md#link-endpoints `?url=`, the browser extension's "already saved?" lookup).
   */
  async withUrl(url: string, viewer: Viewer): Promise<LinkView[]> {
    const rows = await this.db
      .selectFrom('links')
      .select(LINK_COLUMNS)
      .where('links.url', '=', url)
      .where(discoverableBy(viewer))
      .orderBy('links.created_at', 'desc')
      .orderBy('links.id', 'desc')
      .execute();
    return this.withDetails(rows.map(toLink));
  }
}
