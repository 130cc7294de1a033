import { sql, type CompiledQuery, type Kysely } from 'kysely';
import type { LinkFacts } from '../domain/caps.js';
import type { Database } from '../db/schema.js';
import { andThen, HotQuery, type HotLookups, VIA_KYSELY, type MaybePromise } from './hotQuery.js';
import { sessionKey } from '../domain/secrets.js';
import type { Clock, Viewer } from './types.js';
import { factColumns, factsFrom } from './holdings.js';
import { RESOLVE_COLUMNS, toResolveTarget, type ResolveTarget } from './linkLookups.js';
import { Memo } from '../domain/memo.js';

export interface SessionData {
  userId: string;
  role: string;
  createdAt: number;
}

/**
 * Who a session cookie names, as the resolver needs it: nobody (no such live
 * session), a session whose user has since been deleted, or the user's id
 * and role as the database holds them now (so a role change applies on the
 * next request).
 */
export type SessionViewer = { kind: 'none' } | { kind: 'orphaned' } | { kind: 'user'; viewer: NonNullable<Viewer> };

const NONE: SessionViewer = { kind: 'none' };
const ORPHANED: SessionViewer = { kind: 'orphaned' };

/** All a redirect needs of a session and its user, and no more: each column is read on every redirect. */
const VIEWER_COLUMNS = ['sessions.expiry', 'sessions.user_id', 'users.id as viewer_id', 'users.role'] as const;
/** Their names in a row: `viewer_id`, so a query that also selects a link's `id` keeps both where rows are read by name (MySQL). */
const VIEWER_FIELDS = ['expiry', 'user_id', 'viewer_id', 'role'];
type ViewerRow = [expiry: number | string, sessionUserId: string | null, userId: string | null, role: string | null];
type ViewerWithFactsRow = [owner: number | null, share: number | null, ...viewer: ViewerRow];

/** A session's viewer, and what they hold of one link: the facts a secure link is gated on. */
export interface SessionViewerOfLink {
  viewer: SessionViewer;
  /** Null unless the viewer is a user. */
  facts: LinkFacts | null;
}

/** The viewer lookup with the user's owner and share rows of one link selected first. */
function compileViewerWithFacts(db: Kysely<Database>): CompiledQuery {
  const link = '\u0000link';
  const token = '\u0000token';
  const compiled = db
    .selectFrom('sessions')
    .leftJoin('users', 'users.id', 'sessions.user_id')
    .select([...factColumns(link, sql.ref('users.id')), ...VIEWER_COLUMNS])
    .where('sessions.token', '=', token)
    .compile();
  if (compiled.parameters.join() !== [link, link, link, link, token].join())
    throw new Error('session facts lookup: unexpected placeholder order');
  return compiled;
}

/**
 * What a signed-in visit of a name reads in one lookup: the keyword's template
 * (when a keyword was asked for), the link the name is the slug of, the
 * session's viewer, and for a secure link what that viewer holds of it.
 */
export interface SessionVisit {
  keywordTemplate: string | null;
  link: ResolveTarget | null;
  /** `viewer`, and `facts` of `link` (null unless the link is secure and the viewer a user). */
  session: SessionViewerOfLink;
}

type VisitRow = [
  keywordTemplate: string | null,
  ...link: Parameters<typeof toResolveTarget>,
  owner: number | null,
  share: number | null,
  ...viewer: ViewerRow,
];

/**
 * The session visit lookup: a probe row left-joined to the slug's link and
 * to the session and its user, with the keyword's template as a scalar
 * subquery, so it answers one row whatever exists. The owner and share rows
 * are read only for a secure link. Values are bound by position, so their
 * order is checked once here rather than assumed.
 */
function compileVisit(db: Kysely<Database>): { compiled: CompiledQuery; order: readonly VisitParam[] } {
  const marks: Record<VisitParam, string> = { keyword: '\u0000keyword', slug: '\u0000slug', token: '\u0000token', secure: 'secure' };
  const compiled = db
    .selectFrom(db.selectNoFrom(sql<number>`1`.as('one')).as('probe'))
    .leftJoin('links', (join) => join.on((eb) => eb('links.slug', '=', marks.slug)))
    .leftJoin('sessions', (join) => join.on((eb) => eb('sessions.token', '=', marks.token)))
    .leftJoin('users', 'users.id', 'sessions.user_id')
    .select((eb) => [
      eb.selectFrom('keywords').select('url_template').where('keyword', '=', marks.keyword).as('keyword_template'),
      ...RESOLVE_COLUMNS.map((c) => `links.${c}` as const),
      // Read only for a secure link: no other visit pays for them.
      ...factColumns(
        sql.ref('links.id'),
        sql.ref('users.id'),
        (flag) => sql<number | null>`case when ${eb.ref('links.visibility')} = ${marks.secure} then ${flag} end`,
      ),
      ...VIEWER_COLUMNS,
    ])
    .compile();
  const byMark = new Map(Object.entries(marks).map(([k, v]) => [v, k as VisitParam]));
  const order = compiled.parameters.map((p) => byMark.get(p as string));
  if (order.some((p) => p === undefined) || order.join() !== 'keyword,secure,secure,slug,token') {
    throw new Error(`session visit lookup: unexpected placeholders ${order.join()}`);
  }
  return { compiled, order: order as VisitParam[] };
}

type VisitParam = 'keyword' | 'slug' | 'token' | 'secure';

/** How many tokens' row keys a store remembers (some 2 MB at most). */
const SESSION_KEYS_REMEMBERED = 10_000;

/**
 * Server-side sessions (docs/auth.md#sessions): any replica can serve any session. Every method
 * takes the cookie's token and looks the row up by its digest (`sessionKey`): the table holds
 * no token a copy of it could sign in with.
 */
export class SessionStore {
  private readonly viewerQuery: HotQuery<ViewerRow>;
  private readonly viewerWithFactsQuery: HotQuery<ViewerWithFactsRow>;
  private readonly visitQuery: HotQuery<VisitRow>;
  /**
   * Recent tokens' row keys: a signed-in redirect would otherwise hash its cookie on every
   * visit (about 1.6 µs of a redirect's 30–40). Bounded, and emptied when full; it holds
   * nothing the requests themselves do not carry.
   */
  private readonly keys = new Memo<string, string>(SESSION_KEYS_REMEMBERED);

  constructor(
    private readonly db: Kysely<Database>,
    private readonly now: Clock,
    hot: HotLookups = VIA_KYSELY,
  ) {
    // The session joined to its user in one compiled lookup: synchronous on an SQLite file.
    this.viewerQuery = new HotQuery(
      db,
      db
        .selectFrom('sessions')
        .leftJoin('users', 'users.id', 'sessions.user_id')
        .select(VIEWER_COLUMNS)
        .where('sessions.token', '=', '')
        .compile(),
      VIEWER_FIELDS,
      hot,
    );
    this.viewerWithFactsQuery = new HotQuery(db, compileViewerWithFacts(db), ['owner', 'share', ...VIEWER_FIELDS], hot);
    this.visitQuery = new HotQuery(
      db,
      compileVisit(db).compiled,
      ['keyword_template', ...RESOLVE_COLUMNS, 'owner', 'share', ...VIEWER_FIELDS],
      hot,
    );
  }

  /** The row key of a token: its digest (sessionKey), remembered for the next visits. */
  private keyOf(token: string): string {
    let key = this.keys.get(token);
    if (key === undefined) {
      key = this.keys.set(token, sessionKey(token));
    }
    return key;
  }

  /** The viewer a session token names, checked against its expiry by this store's clock. */
  viewer(token: string): MaybePromise<SessionViewer> {
    return andThen(this.viewerQuery.first([this.keyOf(token)]), (r) => this.viewerFrom(r));
  }

  /**
   * `viewer` and the viewer's owner and share rows of one link, in one
   * compiled lookup: a secure link is gated without a second query.
   */
  viewerOfLink(token: string, linkId: string): MaybePromise<SessionViewerOfLink> {
    return andThen(this.viewerWithFactsQuery.first([linkId, linkId, linkId, linkId, this.keyOf(token)]), (r) => {
      const viewer = this.viewerFrom(r?.slice(2) as ViewerRow | undefined);
      if (viewer.kind !== 'user') return { viewer, facts: null };
      return { viewer, facts: factsFrom(r![0], r![1], viewer.viewer.isAdmin) };
    });
  }

  /**
   * A signed-in visit of `slug` in one lookup (SessionVisit), with `keyword`'s
   * template when one is asked for: the resolver's first read for a session,
   * so a signed-in redirect costs one query like an anonymous one.
   * Synchronous on an SQLite file.
   */
  visit(token: string, slug: string, keyword: string | null): MaybePromise<SessionVisit> {
    return andThen(this.visitQuery.first([keyword, 'secure', 'secure', slug, this.keyOf(token)]), (r) => {
      if (!r) throw new Error('session visit lookup answered no row');
      const link = toResolveTarget(r[1], r[2], r[3], r[4], r[5], r[6], r[7]);
      const viewer = this.viewerFrom([r[10], r[11], r[12], r[13]]);
      const facts = link?.visibility === 'secure' && viewer.kind === 'user' ? factsFrom(r[8], r[9], viewer.viewer.isAdmin) : null;
      return { keywordTemplate: r[0], link, session: { viewer, facts } };
    });
  }

  private viewerFrom(r: ViewerRow | undefined): SessionViewer {
    if (!r || Number(r[0]) <= this.now() || r[1] === null) return NONE;
    if (r[2] === null || r[2] === undefined) return ORPHANED;
    return { kind: 'user', viewer: { id: r[2], isAdmin: r[3] === 'admin' } };
  }

  async create(token: string, data: SessionData, expiry: number): Promise<void> {
    await this.db
      .insertInto('sessions')
      .values({ token: sessionKey(token), data: Buffer.from(JSON.stringify(data)), expiry, user_id: data.userId })
      .execute();
  }

  /** An expired row reads as absent even before the sweep removes it. */
  async get(token: string): Promise<SessionData | null> {
    const r = await this.db.selectFrom('sessions').select(['data', 'expiry']).where('token', '=', sessionKey(token)).executeTakeFirst();
    if (!r || Number(r.expiry) <= this.now()) return null;
    try {
      const parsed = JSON.parse(Buffer.from(r.data).toString('utf8')) as SessionData;
      return typeof parsed?.userId === 'string' ? parsed : null;
    } catch {
      return null;
    }
  }

  async delete(token: string): Promise<void> {
    await this.db.deleteFrom('sessions').where('token', '=', sessionKey(token)).execute();
  }

  async deleteExpired(): Promise<number> {
    const r = await this.db.deleteFrom('sessions').where('expiry', '<=', this.now()).executeTakeFirst();
    return Number(r.numDeletedRows);
  }
}
