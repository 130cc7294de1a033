import { sql, type CompiledQuery, type Kysely, type Selectable } from 'kysely';
import { asVisibility, type Visibility } from '../domain/caps.js';
import type { Database, LinksTable } from '../db/schema.js';
import { andThen, HotQuery, type HotLookups, VIA_KYSELY, type MaybePromise, type ValuesOf } from './hotQuery.js';

/**
 * The resolver's reads of links (docs/server.md#the-redirect-hot-path): each a statement
 * compiled once and run through HotQuery, so on an SQLite file it answers synchronously and
 * a redirect never waits. LinkStore answers them; store/sessions.ts reads the same columns
 * joined to a visitor's session.
 */

/** What the resolver needs about a slug, and nothing more (the hot path). */
export interface ResolveTarget {
  id: string;
  url: string;
  visibility: Visibility;
  expiresAt: number | null;
  archivedAt: number | null;
  /** docs/links.md#path-and-query-forwarding */
  forwardPathAndQuery: boolean;
  /** docs/links.md#default-destination */
  defaultUrl: string | null;
}

/** What the resolver reads of a link, in this order (HotQuery's values). */
export const RESOLVE_COLUMNS = ['id', 'url', 'visibility', 'expires_at', 'archived_at', 'forward_path_and_query', 'default_url'] as const;

/** A keyword's template, then RESOLVE_COLUMNS (HotQuery's values). */
const KEYWORD_AND_SLUG_COLUMNS = ['keyword_template', ...RESOLVE_COLUMNS] as const;

/** A probe row left-joined to the link: every link column may be null. */
type KeywordAndSlugRow = { [K in keyof LinkRow]: LinkRow[K] | null } & { keyword_template: string | null };

type LinkRow = Selectable<LinksTable>;

/** A keyword's template, if there is such a keyword, and the link a slug names. */
export interface KeywordAndSlug {
  keywordTemplate: string | null;
  link: ResolveTarget | null;
}

export function toResolveTarget(
  id: string | null,
  url: string | null,
  visibility: string | null,
  expiresAt: number | bigint | null,
  archivedAt: number | bigint | null,
  forward: number | bigint | null,
  defaultUrl: string | null,
): ResolveTarget | null {
  if (id === null || url === null || visibility === null) return null;
  return {
    id,
    url,
    visibility: asVisibility(visibility),
    expiresAt: expiresAt === null ? null : Number(expiresAt),
    archivedAt: archivedAt === null ? null : Number(archivedAt),
    // Loose on purpose: drivers answer a number, a bigint or (MySQL) a string.
    forwardPathAndQuery: Number(forward) === 1,
    defaultUrl,
  };
}

/**
 * One query for a keyword and a slug: a probe row left-joined to the
 * link, with the keyword's template as a scalar subquery, so it answers one row
 * whether either exists or not. The values are bound by position, so the
 * placeholders' order is checked once here rather than assumed.
 */
function compileKeywordAndSlug(db: Kysely<Database>): CompiledQuery {
  const keyword = '\u0000keyword';
  const slug = '\u0000slug';
  const compiled = db
    .selectFrom(db.selectNoFrom(sql<number>`1`.as('one')).as('probe'))
    .leftJoin('links', (join) => join.on((eb) => eb('links.slug', '=', slug)))
    .select((eb) => [
      eb.selectFrom('keywords').select('url_template').where('keyword', '=', keyword).as('keyword_template'),
      ...RESOLVE_COLUMNS.map((c) => `links.${c}` as const),
    ])
    .compile();
  if (compiled.parameters.length !== 2 || compiled.parameters[0] !== keyword || compiled.parameters[1] !== slug) {
    throw new Error('keyword-and-slug lookup: unexpected placeholder order');
  }
  return compiled;
}

/** The three compiled lookups of the resolver; `hot` runs them the database's cheapest way. */
export class LinkLookups {
  private readonly resolveQuery: HotQuery<ValuesOf<LinkRow, typeof RESOLVE_COLUMNS>>;
  private readonly keywordAndSlugQuery: HotQuery<ValuesOf<KeywordAndSlugRow, typeof KEYWORD_AND_SLUG_COLUMNS>>;
  private readonly aliasQuery: HotQuery<ValuesOf<LinkRow, typeof RESOLVE_COLUMNS>>;
  private readonly hyphenlessQuery: HotQuery<ValuesOf<LinkRow, typeof RESOLVE_COLUMNS>>;

  constructor(db: Kysely<Database>, hot: HotLookups = VIA_KYSELY) {
    // Compiled once: the resolver pays only for execution, never for query building.
    this.resolveQuery = new HotQuery(
      db,
      db.selectFrom('links').select(RESOLVE_COLUMNS).where('slug', '=', '').compile(),
      RESOLVE_COLUMNS,
      hot,
    );
    this.keywordAndSlugQuery = new HotQuery(db, compileKeywordAndSlug(db), KEYWORD_AND_SLUG_COLUMNS, hot);
    this.aliasQuery = new HotQuery(
      db,
      db
        .selectFrom('link_names')
        .innerJoin('links', 'links.id', 'link_names.link_id')
        .select(RESOLVE_COLUMNS.map((c) => `links.${c}` as const))
        .where('link_names.name', '=', '')
        .compile(),
      RESOLVE_COLUMNS,
      hot,
    );
    // Run only once every other lookup of a name has missed; the first slug in order wins.
    this.hyphenlessQuery = new HotQuery(
      db,
      db.selectFrom('links').select(RESOLVE_COLUMNS).where('slug_key', '=', '').orderBy('slug').limit(1).compile(),
      RESOLVE_COLUMNS,
      hot,
    );
  }

  /**
   * The link whose slug is `key` once its hyphens are dropped (golink's matching,
   * docs/links.md#forgiveness-and-did-you-mean): `meetingnotes` finds `meeting-notes`. For
   * the resolver's last try on a miss only. Synchronous on an SQLite file.
   */
  lookupHyphenlessForResolve(key: string): MaybePromise<ResolveTarget | null> {
    // The limit is the compiled statement's second parameter.
    return andThen(this.hyphenlessQuery.first([key, 1]), (r) => (r ? toResolveTarget(...r) : null));
  }

  /** Synchronous on an SQLite file (the redirect fast path relies on it); a promise elsewhere. */
  lookupForResolve(slug: string): MaybePromise<ResolveTarget | null> {
    return andThen(this.resolveQuery.first([slug]), (r) => (r ? toResolveTarget(...r) : null));
  }

  /**
   * The link a name leads to by its aliases (docs/links.md#aliases), for the
   * resolver once the slug lookup has missed, so a hit on a slug never pays
   * for it. Synchronous on an SQLite file.
   */
  lookupAliasForResolve(name: string): MaybePromise<ResolveTarget | null> {
    return andThen(this.aliasQuery.first([name]), (r) => (r ? toResolveTarget(...r) : null));
  }

  /**
   * `keywords.templateFor(keyword)` and `lookupForResolve(slug)` in one query,
   * for the resolver's keyword steps (a first path segment, or a keyword-shaped
   * host such as `go`), whose miss asks for the slug next: one read
   * transaction on SQLite instead of two (each costs about as much as the
   * lookup itself), one round trip elsewhere. Synchronous on an SQLite file.
   */
  lookupKeywordAndSlug(keyword: string, slug: string): MaybePromise<KeywordAndSlug> {
    return andThen(this.keywordAndSlugQuery.first([keyword, slug]), (r) => {
      if (!r) return { keywordTemplate: null, link: null };
      const [keywordTemplate, ...link] = r;
      return { keywordTemplate, link: toResolveTarget(...link) };
    });
  }
}
