import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { levenshtein } from '../domain/levenshtein.js';
import { codePointLength, truncateCodePoints } from '../domain/text.js';
import { activeAt, discoverableBy } from './access.js';
import { contains, ilike, like, startsWith } from './sql.js';
import type { Clock, Viewer } from './types.js';

export interface Suggestion {
  /** The name to type: a link's slug, or one of its aliases (docs/links.md#aliases). */
  slug: string;
  title: string;
}

const TYPO_DISTANCE = 2;

/**
 * How many edits a query may be away from a name (docs/links.md#forgiveness-and-did-you-mean): two, but one
 * for queries of three code points or fewer, where two edits reach nearly every short name.
 */
function typoBudget(queryLength: number): number {
  return queryLength <= 3 ? 1 : TYPO_DISTANCE;
}
const SUGGEST_CANDIDATES = 50;

const byteOrder = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Discovery surfaces (docs/links.md#autocomplete-and-search): did-you-mean on the resolver 404 and the
 * suggest endpoint. Both only ever consider links the viewer may discover and
 * that are active, so neither is an existence oracle.
 */
export class DiscoveryStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly now: Clock,
  ) {}

  /** Names (slugs and aliases) within the typo budget of `q`, nearest first, then byte order. */
  private async typoMatches(q: string, viewer: Viewer, exclude: ReadonlySet<string>): Promise<Array<Suggestion & { distance: number }>> {
    const len = codePointLength(q);
    const [slugs, aliases] = await Promise.all([
      this.db
        .selectFrom('links')
        .select(['links.slug', 'links.title'])
        .where(discoverableBy(viewer))
        .where(activeAt(this.now()))
        .where((eb) => eb(eb.fn('length', ['links.slug']), '>=', len - TYPO_DISTANCE))
        .where((eb) => eb(eb.fn('length', ['links.slug']), '<=', len + TYPO_DISTANCE))
        .execute(),
      this.aliases(viewer)
        .where((eb) => eb(eb.fn('length', ['link_names.name']), '>=', len - TYPO_DISTANCE))
        .where((eb) => eb(eb.fn('length', ['link_names.name']), '<=', len + TYPO_DISTANCE))
        .execute(),
    ]);
    const rows = [...slugs, ...aliases];
    const out: Array<Suggestion & { distance: number }> = [];
    for (const r of rows) {
      if (r.slug === q || exclude.has(r.slug)) continue;
      const distance = levenshtein(q, r.slug, TYPO_DISTANCE);
      if (distance <= typoBudget(len)) out.push({ slug: r.slug, title: r.title ?? '', distance });
    }
    return out.sort((a, b) => a.distance - b.distance || byteOrder(a.slug, b.slug));
  }

  /** The aliases of links the viewer may discover and that are active, as (slug, title) rows. */
  private aliases(viewer: Viewer) {
    return this.db
      .selectFrom('link_names')
      .innerJoin('links', 'links.id', 'link_names.link_id')
      .select(['link_names.name as slug', 'links.title'])
      .where('link_names.is_alias', '=', 1)
      .where(discoverableBy(viewer))
      .where(activeAt(this.now()));
  }

  /** Up to three near-miss links, nearest first, for a 404 (docs/links.md#forgiveness-and-did-you-mean); query errors yield none. */
  async didYouMean(firstSegment: string, viewer: Viewer): Promise<Suggestion[]> {
    const q = firstSegment.toLowerCase();
    if (codePointLength(q) <= 1) return [];
    try {
      return (await this.typoMatches(q, viewer, new Set())).slice(0, 3).map(({ slug, title }) => ({ slug, title }));
    } catch {
      return [];
    }
  }

  /**
   * Prefix, substring, then title/description matches, then typos
   * (docs/links.md#autocomplete-and-search); an alias matches by its name as a slug does.
   */
  async suggest(rawQ: string, viewer: Viewer, limit: number): Promise<Suggestion[]> {
    const q = truncateCodePoints(rawQ.toLowerCase(), 64);
    if (q === '') return [];
    const aliasRows = this.aliases(viewer)
      .select((eb) =>
        eb
          .case()
          .when(like('link_names.name', startsWith(q)))
          .then(0)
          .else(1)
          .end()
          .as('band'),
      )
      .where(like('link_names.name', contains(q)))
      .orderBy('band')
      .orderBy('link_names.name')
      .limit(SUGGEST_CANDIDATES)
      .execute();
    const slugRows = this.db
      .selectFrom('links')
      .select((eb) => [
        'links.slug',
        'links.title',
        eb
          .case()
          .when(like('links.slug', startsWith(q)))
          .then(0)
          .when(like('links.slug', contains(q)))
          .then(1)
          .else(2)
          .end()
          .as('band'),
      ])
      .where(discoverableBy(viewer))
      .where(activeAt(this.now()))
      .where((eb) => eb.or([like('links.slug', contains(q)), ilike('links.title', contains(q)), ilike('links.description', contains(q))]))
      .orderBy('band')
      .orderBy('links.slug')
      .limit(SUGGEST_CANDIDATES)
      .execute();
    const rows = (await Promise.all([slugRows, aliasRows])).flat();
    const ranked = rows
      .map((r) => ({ slug: r.slug, title: r.title ?? '', band: Number(r.band) }))
      .sort((a, b) => a.band - b.band || byteOrder(a.slug, b.slug))
      .slice(0, limit)
      .map(({ slug, title }) => ({ slug, title }));
    if (ranked.length < limit && codePointLength(q) >= 2) {
      const seen = new Set(rows.map((r) => r.slug));
      for (const t of await this.typoMatches(q, viewer, seen)) {
        if (ranked.length >= limit) break;
        ranked.push({ slug: t.slug, title: t.title });
      }
    }
    return ranked;
  }
}
