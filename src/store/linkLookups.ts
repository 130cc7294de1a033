import { sql, type CompiledQuery, type Kysely, type Selectable } from 'kysely';
import { asVisibility, type Visibility } from '../domain/caps.js';
import { SLUG_MAX_SEGMENTS } from '../domain/slug.js';
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

/** The name found, then RESOLVE_COLUMNS (HotQuery's values). */
const NAME_AND_RESOLVE_COLUMNS = ['name', ...RESOLVE_COLUMNS] as const;

/** How many names one longest-name lookup compares: every prefix of a path, its first segment included. */
export const LONGEST_NAME_CANDIDATES = SLUG_MAX_SEGMENTS;

/** The link a name of several segments leads to, and that name. */
export interface NamedTarget {
  name: string;
  link: ResolveTarget;
}

/** A keyword's template, then NAME_AND_RESOLVE_COLUMNS (HotQuery's values). */
const KEYWORD_AND_NAME_COLUMNS = ['keyword_template', ...NAME_AND_RESOLVE_COLUMNS] as const;

/** A keyword's template, if there is such a keyword, and the link the longest of some names leads to. */
export interface KeywordAndLongest {
  keywordTemplate: string | null;
  hit: NamedTarget | null;
}

/**
 * The longest of some names a link has: `names` are its placeholders, the longest first. The
 * first of them a link has is found by one index probe per name tried, stopping at the first
 * found (`coalesce` evaluates no further); null when none is a name. An `IN` list ordered by
 * length cost SQLite a temporary index and a sort on every visit of a template by its prefix.
 */
function longestName(names: readonly string[]) {
  const probes = names.map((n) => sql`(select ln.name from link_names ln where ln.name = ${n})`);
  return sql<string>`coalesce(${sql.join(probes)})`;
}

/** The longest-name query: the longest name a link has, read with its link; one row at most. */
function longestNameSelect(db: Kysely<Database>, names: readonly string[]) {
  return db
    .selectFrom('link_names')
    .innerJoin('links', 'links.id', 'link_names.link_id')
    .select(['link_names.name', ...RESOLVE_COLUMNS.map((c) => `links.${c}` as const)])
    .where('link_names.name', '=', longestName(names));
}

/** Placeholder values that mark their place in a compiled statement, to check its parameter order. */
const marks = (what: string) => Array.from({ length: LONGEST_NAME_CANDIDATES }, (_, i) => `\u0000${what}${i}`);

/**
 * One query for a keyword and the longest of some names, shaped as compileKeywordAndSlug:
 * a probe row left-joined to the longest name and its link, the keyword's template a scalar
 * subquery. A path of several segments asks it instead of the keyword with its first
 * segment, so its keyword step and its longest name cost one query together. The joins are
 * of the tables themselves: joined to a subquery, SQLite copied that subquery's row into a
 * temporary table on every visit (`MATERIALIZE` in its plan), about as much again as the
 * lookups themselves.
 */
function compileKeywordAndLongest(db: Kysely<Database>): CompiledQuery {
  const keyword = '\u0000keyword';
  const names = marks('name');
  const compiled = db
    .selectFrom(db.selectNoFrom(sql<number>`1`.as('one')).as('probe'))
    .leftJoin('link_names', (join) => join.on('link_names.name', '=', longestName(names)))
    .leftJoin('links', 'links.id', 'link_names.link_id')
    .select((eb) => [
      eb.selectFrom('keywords').select('url_template').where('keyword', '=', keyword).as('keyword_template'),
      'link_names.name',
      ...RESOLVE_COLUMNS.map((c) => `links.${c}` as const),
    ])
    .compile();
  const expected = [keyword, ...names];
  if (compiled.parameters.length !== expected.length || compiled.parameters.some((p, i) => p !== expected[i])) {
    throw new Error('keyword-and-longest lookup: unexpected placeholder order');
  }
  return compiled;
}

/**
 * The values for the longest-name placeholders, appended to `leading` (the statement's
 * parameters before them): `names` (shortest first) longest first, then nulls. A plain loop:
 * `Array.from` with a callback cost a template visit about a tenth of its lookup.
 */
function namesParams(names: readonly string[], leading: unknown[] = []): unknown[] {
  if (names.length === 0 || names.length > LONGEST_NAME_CANDIDATES) {
    throw new Error(`longest-name lookup: 1 to ${LONGEST_NAME_CANDIDATES} names`);
  }
  for (let i = 0; i < LONGEST_NAME_CANDIDATES; i++) leading.push(i < names.length ? names[names.length - 1 - i] : null);
  return leading;
}

function toNamedTarget(name: string | null, ...link: Parameters<typeof toResolveTarget>): NamedTarget | null {
  const target = toResolveTarget(...link);
  return name !== null && target ? { name, link: target } : null;
}

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
  private readonly longestNameQuery: HotQuery<ValuesOf<LinkRow & { name: string }, typeof NAME_AND_RESOLVE_COLUMNS>>;
  private readonly keywordAndLongestQuery: HotQuery<ValuesOf<KeywordAndSlugRow & { name: string | null }, typeof KEYWORD_AND_NAME_COLUMNS>>;

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
    // A fixed number of placeholders, so the statement is compiled and prepared once; the
    // caller repeats a name to fill the ones it does not need. Every name of every link,
    // slug or alias, is a `link_names` row: one probe of its key per name.
    this.longestNameQuery = new HotQuery(db, longestNameSelect(db, marks('name')).compile(), NAME_AND_RESOLVE_COLUMNS, hot);
    this.keywordAndLongestQuery = new HotQuery(db, compileKeywordAndLongest(db), KEYWORD_AND_NAME_COLUMNS, hot);
  }

  /**
   * The link named by the longest of `names`, its slug or an alias
   * (docs/links.md#resolution): `names` are a path's prefixes of two segments or more, at
   * most LONGEST_NAME_CANDIDATES of them. One query whatever their number; synchronous on an
   * SQLite file.
   */
  lookupLongestForResolve(names: readonly string[]): MaybePromise<NamedTarget | null> {
    return andThen(this.longestNameQuery.first(namesParams(names)), (r) => (r ? toNamedTarget(...r) : null));
  }

  /**
   * `keywords.templateFor(keyword)` and `lookupLongestForResolve(names)` in one query, for
   * the keyword step of a path of several segments: its longest name is what it asks for
   * next. Synchronous on an SQLite file.
   */
  lookupKeywordAndLongest(keyword: string, names: readonly string[]): MaybePromise<KeywordAndLongest> {
    return andThen(this.keywordAndLongestQuery.first(namesParams(names, [keyword])), (r) => {
      if (!r) return { keywordTemplate: null, hit: null };
      const [keywordTemplate, ...hit] = r;
      return { keywordTemplate, hit: toNamedTarget(...hit) };
    });
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
