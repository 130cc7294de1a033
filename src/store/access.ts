import { sql, type CompiledQuery, type ExpressionBuilder, type Expression, type Kysely, type SqlBool } from 'kysely';
import { linkCaps, NO_CAPS, type LinkCaps, type LinkFacts } from '../domain/caps.js';
import type { Database } from '../db/schema.js';
import { andThen, HotQuery, type HotLookups, VIA_KYSELY, type MaybePromise } from './hotQuery.js';
import { factColumns, factsFrom, holds, holdsThroughGroup, type Holding } from './holdings.js';
import { contains, ilike } from './sql.js';
import type { Clock, Executor, Viewer } from './types.js';

type LinksEb = ExpressionBuilder<Database, 'links'>;

/**
 * Who may discover a link (docs/links.md#visibility): anonymous → public only; a signed-in
 * user → public, or owned/co-owned, or shared with them; admins → all.
 * Every discovery surface (tags, autocomplete, suggest, did-you-mean) uses
 * this one predicate.
 */
export function discoverableBy(viewer: Viewer): (eb: LinksEb) => Expression<SqlBool> {
  return (eb) => {
    if (viewer?.isAdmin) return sql<SqlBool>`1 = 1`;
    if (!viewer) return eb('links.visibility', '=', 'public');
    return eb.or([eb('links.visibility', '=', 'public'), heldBy(viewer)(eb)]);
  };
}

/**
 * Links the viewer owns, co-owns or has been shared (every link for an admin):
 * the links whose expired or archived state they still see, badged.
 */
export function heldBy(viewer: Viewer): (eb: LinksEb) => Expression<SqlBool> {
  return (eb) => {
    if (viewer?.isAdmin) return sql<SqlBool>`1 = 1`;
    if (!viewer) return sql<SqlBool>`1 = 0`;
    return hasOwnerOrShareRow(viewer.id)(eb);
  };
}

/** Links the viewer owns or co-owns (every link for an admin; none without a viewer). */
export function ownedBy(viewer: Viewer): (eb: LinksEb) => Expression<SqlBool> {
  return (eb) => {
    if (viewer?.isAdmin) return sql<SqlBool>`1 = 1`;
    if (!viewer) return sql<SqlBool>`1 = 0`;
    return hasOwnerRow(viewer.id)(eb);
  };
}

/** `userId` is the link's primary owner or a co-owner, themselves or through a group, admin or not. */
export function hasOwnerRow(userId: string): (eb: LinksEb) => Expression<SqlBool> {
  return () => holds('owner', sql.ref('links.id'), userId);
}

/** `userId` owns, co-owns or has been shared the link, admin or not. */
export function hasOwnerOrShareRow(userId: string): (eb: LinksEb) => Expression<SqlBool> {
  return (eb) => eb.or([hasOwnerRow(userId)(eb), hasShareRow(userId)(eb)]);
}

/** A group `userId` is a member of owns the link, admin or not. */
export function hasGroupOwnerRow(userId: string): (eb: LinksEb) => Expression<SqlBool> {
  return () => holdsThroughGroup('owner', sql.ref('links.id'), userId);
}

/** The link is shared with `userId` or a group of theirs, admin or not. */
export function hasShareRow(userId: string): (eb: LinksEb) => Expression<SqlBool> {
  return () => holds('share', sql.ref('links.id'), userId);
}

/**
 * The one search rule of every link list (docs/links.md#autocomplete-and-search): a
 * case-insensitive literal substring of the slug, the URL, the title, the description or any
 * owner's display name. Every searchable list (dashboard, browse, admin, MCP) uses it, so a
 * link is found by the same words wherever it is listed.
 */
export function matchesSearch(text: string): (eb: LinksEb) => Expression<SqlBool> {
  const pattern = contains(text);
  return (eb) =>
    eb.or([
      ...(['slug', 'url', 'title', 'description'] as const).map((f) => ilike(`links.${f}`, pattern)),
      eb.exists(
        eb
          .selectFrom('link_owners')
          .innerJoin('users', 'users.id', 'link_owners.user_id')
          .select('link_owners.link_id')
          .whereRef('link_owners.link_id', '=', 'links.id')
          .where(ilike('users.display_name', pattern)),
      ),
    ]);
}

/** Not archived and not past its expiry: the only links discovery surfaces ever show. */
export function activeAt(now: number): (eb: LinksEb) => Expression<SqlBool> {
  return (eb) =>
    eb.and([eb('links.archived_at', 'is', null), eb.or([eb('links.expires_at', 'is', null), eb('links.expires_at', '>', now)])]);
}

/**
 * What a tag lists for the viewer, on the pages and over REST alike (docs/links.md#tags): the
 * links they may discover that are active, and their own expired or archived ones (owned,
 * co-owned or shared; every link for an admin), which they still see badged. Someone else's
 * dead link is gone from every tag count and list.
 */
export function listedBy(viewer: Viewer, now: number): (eb: LinksEb) => Expression<SqlBool> {
  return (eb) => eb.and([discoverableBy(viewer)(eb), eb.or([activeAt(now)(eb), heldBy(viewer)(eb)])]);
}

/** Loads the three facts LinkCaps needs; the decision itself stays in `domain/caps.ts`. */
/** What one user holds of one link, owner then share (placeholders: link, user, twice each, by `holds`). */
function compileFacts(db: Kysely<Database>): CompiledQuery {
  const link = '\u0000link';
  const user = '\u0000user';
  const compiled = db.selectNoFrom(factColumns(link, user)).compile();
  if (compiled.parameters.join() !== [link, user, link, user, link, user, link, user].join()) {
    throw new Error('access facts lookup: unexpected placeholder order');
  }
  return compiled;
}

export class AccessStore {
  private readonly factsQuery: HotQuery<[owner: number | null, share: number | null]>;

  constructor(
    private readonly db: Kysely<Database>,
    readonly now: Clock,
    hot: HotLookups = VIA_KYSELY,
  ) {
    this.factsQuery = new HotQuery(db, compileFacts(db), ['owner', 'share'], hot);
  }

  /**
   * The three facts capabilities rest on, in one compiled lookup: synchronous
   * on an SQLite file, so the resolver can gate a secure link without a promise turn.
   */
  facts(linkId: string, viewer: Viewer): MaybePromise<LinkFacts | null> {
    if (!viewer) return null;
    return andThen(this.factsQuery.first([linkId, viewer.id, linkId, viewer.id, linkId, viewer.id, linkId, viewer.id]), (r) =>
      factsFrom(r?.[0], r?.[1], viewer.isAdmin),
    );
  }

  async caps(linkId: string, viewer: Viewer): Promise<LinkCaps> {
    const facts = await this.facts(linkId, viewer);
    return facts ? linkCaps(facts) : NO_CAPS;
  }

  /**
   * The capabilities as the caller's transaction sees them, after it locked
   * the link: a write authorized here cannot be overtaken by a change of
   * owners or shares, or by a link created under the same slug meanwhile.
   */
  async capsIn(linkId: string, viewer: Viewer, tx: Executor): Promise<LinkCaps> {
    if (!viewer) return NO_CAPS;
    const r = await tx.selectNoFrom(factColumns(linkId, viewer.id)).executeTakeFirstOrThrow();
    return linkCaps(factsFrom(r.owner, r.share, viewer.isAdmin));
  }

  /** Capabilities for a whole list in two queries, identical to evaluating each link alone. */
  async capsMany(linkIds: readonly string[], viewer: Viewer): Promise<Map<string, LinkCaps>> {
    const out = new Map<string, LinkCaps>();
    if (!viewer || linkIds.length === 0) {
      for (const id of linkIds) out.set(id, NO_CAPS);
      return out;
    }
    const ids = [...new Set(linkIds)];
    const [owned, shared] = await Promise.all([this.heldAmong('owner', viewer.id, ids), this.heldAmong('share', viewer.id, ids)]);
    const ownedSet = new Set(owned);
    const sharedSet = new Set(shared);
    for (const id of ids) {
      out.set(id, linkCaps(factsFrom(ownedSet.has(id) ? 1 : null, sharedSet.has(id) ? 1 : null, viewer.isAdmin)));
    }
    return out;
  }

  /** Which of `ids` the user holds `holding` of, themselves or through a group. */
  private async heldAmong(holding: Holding, userId: string, ids: readonly string[]): Promise<string[]> {
    const rows = await this.db
      .selectFrom('links')
      .select('links.id')
      .where('links.id', 'in', ids)
      .where(() => holds(holding, sql.ref('links.id'), userId))
      .execute();
    return rows.map((r) => r.id);
  }
}
