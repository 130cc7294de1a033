import type { ExpressionBuilder, Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { ownedBy } from './access.js';
import type { OwnerStore } from './owners.js';
import { LINK_COLUMNS, toLink } from './rows.js';
import type { LinkNameStore } from './linkNames.js';
import { withLinkDetails } from './links.js';
import type { TagStore } from './tags.js';
import type { Clock, Link, LinkView, Viewer } from './types.js';

/**
 * Staleness views (docs/lifecycle.md#staleness), computed on each request from the
 * `link_clicks` rows that exist — no counters, no rollups. Window boundaries
 * are computed here in TypeScript and bound as epoch-ms parameters, so the SQL
 * is the same on every database.
 */

export type StalenessFilter = 'stale' | 'never-clicked';

const DAY_MS = 86_400_000;
/**
 * The look-back of "Stale". Click retention may never be shorter, or the view
 * would call a link stale because its clicks were pruned: the config refuses
 * JOE_CLICK_RETENTION of 1–89 days for that reason.
 */
export const STALE_WINDOW_DAYS = 90;
export const STALE_WINDOW_MS = STALE_WINDOW_DAYS * DAY_MS;
/** A link younger than this has not had a fair chance to be clicked. */
export const NEVER_CLICKED_MIN_AGE_MS = 7 * DAY_MS;

export const STALENESS_FILTERS: Record<StalenessFilter, { label: string; hint: string }> = {
  stale: { label: 'Stale', hint: 'Created over 90 days ago, no clicks in the last 90 days' },
  'never-clicked': { label: 'Never clicked', hint: 'Created over 7 days ago, never clicked' },
};

/** With retention on, a link whose clicks all aged out looks never clicked; the hint says so. */
export function stalenessHint(filter: StalenessFilter, retentionActive: boolean): string {
  if (filter === 'never-clicked' && retentionActive) {
    return 'Created over 7 days ago, no clicks within the retention window (older clicks may have been pruned)';
  }
  return STALENESS_FILTERS[filter].hint;
}

export function isStalenessFilter(v: unknown): v is StalenessFilter {
  return v === 'stale' || v === 'never-clicked';
}

export interface StalenessQuery {
  /** Keyset position: rows strictly after this slug. */
  afterSlug?: string;
  limit?: number;
}

type LinksEb = ExpressionBuilder<Database, 'links'>;

export class StalenessStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly now: Clock,
    private readonly tags: TagStore,
    private readonly owners: OwnerStore,
    private readonly names: LinkNameStore,
  ) {}

  /**
   * Governing: docs/lifecycle.md#staleness. Scope: a non-admin sees only
   * links they own or co-own (never links merely shared with them, never
   * other users' public links); an admin sees all links. Archived links never
   * appear; expired ones may (only archiving retires a link). Slug order.
   */
  async list(filter: StalenessFilter, viewer: Viewer, query: StalenessQuery = {}): Promise<{ links: LinkView[]; hasMore: boolean }> {
    if (!viewer) return { links: [], hasMore: false };
    let q = this.selecting(filter, viewer).select(LINK_COLUMNS);
    if (query.afterSlug !== undefined) q = q.where('links.slug', '>', query.afterSlug);
    const limit = query.limit ?? 50;
    const rows = await q
      .orderBy('links.slug')
      .limit(limit + 1)
      .execute();
    return { links: await this.withDetails(rows.slice(0, limit).map(toLink)), hasMore: rows.length > limit };
  }

  /** One numbered page of the same list by slug, with how many links it holds in all (docs/web-ui.md#link-tables). */
  async page(
    filter: StalenessFilter,
    viewer: Viewer,
    opts: { offset: number; limit: number },
  ): Promise<{ links: LinkView[]; total: number }> {
    if (!viewer) return { links: [], total: 0 };
    const base = this.selecting(filter, viewer);
    const [count, rows] = await Promise.all([
      base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
      base.select(LINK_COLUMNS).orderBy('links.slug').limit(opts.limit).offset(opts.offset).execute(),
    ]);
    return { links: await this.withDetails(rows.map(toLink)), total: Number(count.n) };
  }

  private selecting(filter: StalenessFilter, viewer: NonNullable<Viewer>) {
    const now = this.now();
    let q = this.db.selectFrom('links').where('links.archived_at', 'is', null);
    q = q.where(ownedBy(viewer));
    if (filter === 'stale') {
      const since = now - STALE_WINDOW_MS;
      return q
        .where('links.created_at', '<=', since)
        .where((eb) => eb.not(eb.exists(clicksOf(eb).where('link_clicks.clicked_at', '>', since))));
    }
    return q.where('links.created_at', '<=', now - NEVER_CLICKED_MIN_AGE_MS).where((eb) => eb.not(eb.exists(clicksOf(eb))));
  }

  /** Tags, owners and aliases for a page, the shape every link list has. */
  private withDetails(links: readonly Link[]): Promise<LinkView[]> {
    return withLinkDetails(links, { tags: this.tags, owners: this.owners, names: this.names });
  }
}

function clicksOf(eb: LinksEb) {
  return eb.selectFrom('link_clicks').select('link_clicks.id').whereRef('link_clicks.link_id', '=', 'links.id');
}
