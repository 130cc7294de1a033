import { resolveAccess, type LinkFacts } from '../domain/caps.js';
import { KEYWORD_PATTERN } from '../domain/keywords.js';
import { lifecycleState } from '../domain/lifecycle.js';
import {
  golinkCandidates,
  hyphenlessKey,
  isSegmentShaped,
  isSlugShaped,
  normalizationCandidates,
  SLUG_MAX_LENGTH,
  SLUG_MAX_SEGMENTS,
} from '../domain/slug.js';
import { expandGolinkTemplate, isGolinkTemplate, parseGolinkTemplate } from '../domain/golinkTemplate.js';
import { fillKeywordTemplate, fillTemplateSafely, forwardPathAndQuery, hasPlaceholders, templateVariables } from '../domain/url.js';
import { runMaybeSync, wait, type MaybePromise, type Pipeline } from '../store/hotQuery.js';
import type { Store } from '../store/index.js';
import type { SessionViewerOfLink } from '../store/sessions.js';
import { viewerOf, type User, type Viewer } from '../store/types.js';
import type { NamedTarget, ResolveTarget } from '../store/linkLookups.js';

/**
 * How the resolver learns who is asking: nobody; a session cookie's token or
 * the email a trusted forward-auth proxy vouches for, each looked up only once
 * a link is found (a miss never pays for it); or a user the web layer has
 * already established.
 */
export type ViewerSource =
  { kind: 'anonymous' } | { kind: 'session'; token: string } | { kind: 'proxied'; email: string } | { kind: 'known'; user: User | null };

export interface ResolveRequest {
  /** The request path as received, without its leading `/` and query string. */
  path: string;
  /** The request's host name, without port. */
  host: string;
  viewer: ViewerSource;
  /** The query string without its `?`; '' when there is none. Read only for templates and forwarding links. */
  query: string;
}

/**
 * What a go-link request comes to. A redirect is answered as is; the others
 * are pages the web layer renders (docs/links.md#resolution).
 */
export type Resolution =
  | {
      kind: 'redirect';
      location: string;
      /** The link whose click this is; null for a keyword template, which stores none. */
      linkId: string | null;
      userId: string | null;
      /** An HTMX request to a link gets `HX-Redirect` instead of a 302 (keywords never do). */
      htmxAware: boolean;
      /**
       * A template variable was filled by name from the query, as the fill-in page's form
       * sends it (docs/links.md#fill-in-page): the form's own submission is answered with a
       * page that moves on, since a redirect answering a form is held to `form-action`.
       */
      filledByName?: true;
    }
  /** A secure link asked for by nobody: sign in first. */
  | { kind: 'login' }
  | { kind: 'forbidden' }
  | { kind: 'expired'; slug: string; link: ResolveTarget }
  /**
   * `slug` is the first path segment as typed (decoded), or the whole path when it is, as
   * typed, a name of several segments (`blog/launch`); a create offer only for plain misses.
   * `held`: an archived link has the name, so it acts gone but cannot be created again
   * (docs/lifecycle.md#resolving-expired-and-archived-links).
   */
  | { kind: 'not_found'; slug: string; offerCreate: boolean; held?: boolean }
  /**
   * A template visited without all of its values (docs/links.md#fill-in-page): the page
   * asks for them. `values` holds one entry per variable in order of first appearance,
   * null where none was given. Reached only past the visibility and lifecycle gates.
   */
  | { kind: 'fill_in'; slug: string; link: ResolveTarget; values: (string | null)[] }
  /**
   * `go/<name>+` (docs/links.md#the-plus-suffix): the link's page, for whoever may see it.
   * The resolver only finds the link (null: no link has that name); the web layer applies
   * the link page's access rule, so a miss and a link the viewer may not know look alike.
   */
  | { kind: 'details'; slug: string; linkId: string | null }
  /**
   * The web layer must settle who is asking first: the session's user has been
   * deleted (it signs the browser out), or a forward-auth user has never been
   * seen (it creates them and signs them in). It then resolves the request again.
   */
  | { kind: 'handoff' };

/** Percent-decodes one path segment; a malformed escape is kept literally rather than refused. */
function decodeSegment(s: string): string {
  if (!s.includes('%')) return s;
  try {
    return decodeURIComponent(s);
  } catch {
    return s.replace(/%([0-9A-Fa-f]{2})/g, (m, h: string) => {
      const c = parseInt(h, 16);
      return c < 0x80 ? String.fromCharCode(c) : m;
    });
  }
}

const miss = (slug: string, offerCreate: boolean): Resolution => ({ kind: 'not_found', slug, offerCreate });
/**
 * A keyword's template with `{slug}` filled in, or a miss when the value could move the
 * redirect to another host (docs/links.md#placeholders-in-the-host): stored templates may
 * predate that rule.
 */
const keywordRedirect = (template: string, slug: string, path: string): Resolution => {
  const location = fillKeywordTemplate(template, slug);
  if (location === null) return miss(decodeSegment(path.split('/', 1)[0]!), false);
  return { kind: 'redirect', location, linkId: null, userId: null, htmxAware: false };
};
const HANDOFF: Resolution = { kind: 'handoff' };

/** What one read of a slug found (Resolver.read). */
interface SlugRead {
  /** The keyword's template, when a keyword was asked for and exists. */
  template: string | null;
  link: ResolveTarget | null;
  /** A session's viewer, and their facts of `link`, when the read was a session's. */
  session?: SessionViewerOfLink;
}

/** The suffix that asks for a link's page instead of its destination (`go/jira+`). */
const DETAILS_SUFFIX = '+';

const NO_NESTED_NAMES: { names: string[]; details: boolean } = Object.freeze({ names: [], details: false });

/**
 * The names of several segments a path could open (docs/links.md#resolution), shortest
 * first: each of its case-folded prefixes of two segments or more, while every segment could
 * be one of a name's and the name stays within the rules. A `+` ending the path is left off
 * its last name, which then asks for that link's page (`blog/launch+`). Empty when the path
 * cannot hold such a name: a one-segment path pays nothing for them.
 */
export function nestedNameCandidates(segments: readonly string[]): { names: string[]; details: boolean } {
  const names: string[] = [];
  let details = false;
  const first = segments[0]!.toLowerCase();
  if (segments.length < 2 || !isSegmentShaped(first)) return { names, details };
  let name = first;
  for (let i = 1; i < segments.length && i < SLUG_MAX_SEGMENTS; i++) {
    let segment = segments[i]!.toLowerCase();
    const last = i === segments.length - 1;
    if (last && segment.endsWith(DETAILS_SUFFIX)) segment = segment.slice(0, -DETAILS_SUFFIX.length);
    if (!isSegmentShaped(segment) || name.length + 1 + segment.length > SLUG_MAX_LENGTH) break;
    name = `${name}/${segment}`;
    names.push(name);
    details = last && segment.length < segments[i]!.length;
  }
  return { names, details };
}

/**
 * The one go-link resolver: path keyword → host keyword → exact (case-folded)
 * → normalisation forgiveness, or for a path of several segments the longest
 * name it starts with → its first segment as a prefix; each hit passes the
 * visibility gate, then the lifecycle gate, then template substitution
 * (docs/links.md#resolution, docs/lifecycle.md#resolving-expired-and-archived-links).
 *
 * Every lookup is a compiled statement: on an SQLite file the whole
 * resolution runs synchronously, so a redirect costs no promise turn; on
 * PostgreSQL and MySQL the same steps await the same lookups.
 */
export class Resolver {
  constructor(private readonly store: Pick<Store, 'links' | 'keywords' | 'sessions' | 'users' | 'access' | 'now'>) {}

  resolve(req: ResolveRequest): MaybePromise<Resolution> {
    return runMaybeSync(this.pipeline(req));
  }

  private *pipeline({ path, host, viewer, query }: ResolveRequest): Pipeline<Resolution> {
    const { store } = this;
    if (path === '') return miss('', false);

    const segments = path.split('/').map(decodeSegment);
    const first = segments[0]!;
    // The name a one-segment path asks for; a longer path asks first for the longest name of
    // several segments it starts with, then for its first segment as a prefix.
    const slug = first.toLowerCase();
    const folded = segments.length === 1 ? slug : null;
    // What the slug's read found; undefined while it is still to read.
    let read: SlugRead | undefined;
    const nested = folded === null ? nestedNameCandidates(segments) : NO_NESTED_NAMES;
    // A path that could hold a name of several segments asks for each of them and for its first
    // segment in one lookup (every name of every link, slug or alias, is a `link_names` row),
    // and the longest wins: a template or forwarding link by its prefix costs one query.
    const names = nested.names.length > 0 && isSlugShaped(slug) ? [slug, ...nested.names] : nested.names;
    // The longest of `names` a link has: null when there is none or the path could hold no
    // name of several segments, undefined while it is still to look up.
    let longest: NamedTarget | null | undefined = names.length === 0 ? null : undefined;

    // Keywords match exactly and case-sensitively, before any slug lookup: a first path segment
    // that is a keyword (and not the request host), then the request host itself. Each keyword
    // is read in one query with what a miss asks for next: the longest name of several
    // segments when the path could hold one, else the slug's link.
    const slash = path.indexOf('/');
    if (slash > 0 && slash < path.length - 1) {
      const keyword = path.slice(0, slash);
      if (keyword !== host && KEYWORD_PATTERN.test(keyword)) {
        let template: string | null;
        if (longest === undefined) {
          const both = yield* wait(store.links.lookupKeywordAndLongest(keyword, names));
          template = both.keywordTemplate;
          longest = both.hit;
        } else {
          read = yield* this.read(keyword, slug, viewer);
          template = read.template;
        }
        if (template !== null) return keywordRedirect(template, path.slice(slash + 1), path);
      }
    }
    if (KEYWORD_PATTERN.test(host)) {
      let template: string | null;
      if (longest === undefined) {
        const both = yield* wait(store.links.lookupKeywordAndLongest(host, names));
        template = both.keywordTemplate;
        longest = both.hit;
      } else if (read === undefined && longest === null) {
        // Nothing found yet: the host keyword is read with the slug's link, asked for next.
        template = (read = yield* this.read(host, slug, viewer)).template;
      } else {
        template = yield* wait(store.keywords.templateFor(host));
      }
      if (template !== null) return keywordRedirect(template, path, path);
    }

    if (folded !== null) {
      read ??= yield* this.read(null, folded, viewer);
      if (read.link) return yield* this.follow(read.link, folded, null, viewer, query, read.session);
      // Everything below runs only on a miss of the slug itself: a slug's hit never pays for it.
      if (folded.endsWith(DETAILS_SUFFIX)) {
        const name = folded.slice(0, -DETAILS_SUFFIX.length);
        const hit = isSlugShaped(name) ? yield* this.named(name) : null;
        return { kind: 'details', slug: name, linkId: hit ? hit.id : null };
      }
      for (const candidate of [folded, ...normalizationCandidates(folded)]) {
        if (!isSlugShaped(candidate)) continue;
        // The typed name itself was looked up as a slug above; only its aliases are left.
        const hit = candidate === folded ? yield* wait(store.links.lookupAliasForResolve(candidate)) : yield* this.named(candidate);
        if (hit) return yield* this.follow(hit, candidate, null, viewer, query);
      }
      const forgiven = yield* this.forgiven(folded, [folded, ...normalizationCandidates(folded)]);
      if (forgiven) return yield* this.follow(forgiven.link, forgiven.name, null, viewer, query);
    } else {
      // The longest name the path starts with wins over its first segment (`go/blog/launch/x`
      // opens `blog/launch`, `go/blog/x` the link `blog` by prefix), in one lookup of every candidate.
      if (longest === undefined) longest = yield* wait(store.links.lookupLongestForResolve(names));
      if (longest) {
        const hit = longest;
        if (nested.details && hit.name === nested.names.at(-1)) return { kind: 'details', slug: hit.name, linkId: hit.link.id };
        const rest = segments.slice(hit.name.split('/').length);
        // A session's viewer read with the host keyword serves here too; the facts read with it
        // were of another link, which only a secure link would ask for.
        const known = read?.session && hit.link.visibility !== 'secure' ? { viewer: read.session.viewer, facts: null } : undefined;
        return yield* this.follow(hit.link, hit.name, rest, viewer, query, known);
      }
      if (isSlugShaped(slug) && !names.includes(slug)) {
        // Prefix matching, where the first segment was not asked for with longer names: the
        // slug, then an alias of that name.
        read ??= yield* this.read(null, slug, viewer);
        if (read.link) return yield* this.follow(read.link, slug, segments.slice(1), viewer, query, read.session);
        const alias = yield* wait(store.links.lookupAliasForResolve(slug));
        if (alias) return yield* this.follow(alias, slug, segments.slice(1), viewer, query);
      }
      // golink forgives the first segment before a path too (`go/who,/p`, `go/Foo.Bar/x`).
      const forgiven = yield* this.forgiven(slug, [slug]);
      if (forgiven) return yield* this.follow(forgiven.link, forgiven.name, segments.slice(1), viewer, query);
      // A whole path that could be a name is what was missed, and what may be created.
      const whole = segments.join('/');
      if (!nested.details && isSlugShaped(whole)) return miss(whole, true);
    }
    return miss(first, true);
  }

  /**
   * golink's matching, once every other lookup of a name missed: its trailing punctuation
   * and the name made a slug (golinkCandidates), then each with hyphens ignored.
   */
  private *forgiven(name: string, tried: readonly string[]): Pipeline<{ link: ResolveTarget; name: string } | null> {
    const candidates = golinkCandidates(name, tried);
    for (const candidate of candidates) {
      const hit = yield* this.named(candidate);
      if (hit) return { link: hit, name: candidate };
    }
    const keys: string[] = [];
    for (const candidate of [...tried, ...candidates]) {
      const key = hyphenlessKey(candidate);
      if (key !== null && !keys.includes(key)) keys.push(key);
    }
    for (const key of keys) {
      const hit = yield* wait(this.store.links.lookupHyphenlessForResolve(key));
      if (hit) return { link: hit, name: key };
    }
    return null;
  }

  /**
   * The link a slug names, with a keyword's template when one is given and,
   * for a session, its viewer and what they hold of that link: one query
   * whatever is asked (one read transaction on SQLite, one round trip
   * elsewhere), so a signed-in redirect costs what an anonymous one does. A
   * name that is no slug is never looked up.
   */
  private *read(keyword: string | null, slug: string, viewer: ViewerSource): Pipeline<SlugRead> {
    const { store } = this;
    if (!isSlugShaped(slug)) return { template: keyword === null ? null : yield* wait(store.keywords.templateFor(keyword)), link: null };
    if (viewer.kind === 'session') {
      const visit = yield* wait(store.sessions.visit(viewer.token, slug, keyword));
      return { template: visit.keywordTemplate, link: visit.link, session: visit.session };
    }
    if (keyword === null) return { template: null, link: yield* wait(store.links.lookupForResolve(slug)) };
    const both = yield* wait(store.links.lookupKeywordAndSlug(keyword, slug));
    return { template: both.keywordTemplate, link: both.link };
  }

  /** The link a name leads to: its slug first, then its aliases (docs/links.md#aliases). */
  private *named(name: string): Pipeline<ResolveTarget | null> {
    const bySlug = yield* wait(this.store.links.lookupForResolve(name));
    return bySlug ?? (yield* wait(this.store.links.lookupAliasForResolve(name)));
  }

  /** Visibility first, lifecycle second, then the destination itself. */
  private *follow(
    link: ResolveTarget,
    slug: string,
    rest: readonly string[] | null,
    viewer: ViewerSource,
    query: string,
    /** The session's viewer and facts of this link, when they were read with it. */
    known?: SessionViewerOfLink,
  ): Pipeline<Resolution> {
    const { store } = this;
    const secure = link.visibility === 'secure';
    let who: Viewer = null;
    // The visitor's email where it is already at hand; a golink template's `{{.User}}` reads it.
    let email: string | null = null;
    // Undefined: a secure link's facts are still to be read.
    let facts: LinkFacts | null | undefined;
    if (viewer.kind === 'known') {
      who = viewerOf(viewer.user);
      email = viewer.user?.email ?? null;
    } else if (viewer.kind === 'session') {
      // For a secure link, the session's user and what they hold of it come in one lookup.
      const session = known ?? (secure ? yield* wait(store.sessions.viewerOfLink(viewer.token, link.id)) : null);
      if (session && secure) facts = session.facts;
      const found = session ? session.viewer : yield* wait(store.sessions.viewer(viewer.token));
      if (found.kind === 'orphaned') return HANDOFF;
      if (found.kind === 'user') who = found.viewer;
    } else if (viewer.kind === 'proxied') {
      const user = yield* wait(store.users.forwardAuthUser(viewer.email));
      if (!user) return HANDOFF;
      who = viewerOf(user);
      email = user.email;
    }
    // Internal asks only whether anyone is signed in: no facts of the link to read.
    if (link.visibility === 'internal' && who === null) return { kind: 'login' };
    if (secure) {
      if (facts === undefined) facts = yield* wait(store.access.facts(link.id, who));
      const access = resolveAccess(link.visibility, facts);
      if (access === 'login') return { kind: 'login' };
      if (access === 'forbidden') return { kind: 'forbidden' };
    }
    // Reached only past the visibility gate: an expired secure link says nothing to a stranger.
    const state = lifecycleState(link, store.now());
    // An archived link acts gone: the plain 404, naming no owner and not saying why (its owners find it on their pages).
    if (state === 'archived') return { kind: 'not_found', slug, offerCreate: false, held: true };
    if (state === 'expired') return { kind: 'expired', slug, link };
    let location = link.url;
    let extra = link.forwardPathAndQuery ? rest : null;
    let params: URLSearchParams | null = null;
    let filledByName = false;
    if (isGolinkTemplate(link.url)) {
      // golink's template (docs/links.md#golink-templates) takes the whole rest of the path as
      // `.Path`; forwarding then adds only the visitor's query, as golink does.
      if (email === null && who !== null && parseGolinkTemplate(link.url).usesUser) {
        email = (yield* wait(store.users.findById(who.id)))?.email ?? null;
      }
      const run = expandGolinkTemplate(link.url, { path: (rest ?? []).join('/'), user: email, now: new Date(store.now()) });
      if (run.kind === 'login') return { kind: 'login' };
      if (run.kind === 'error') return miss(slug, false);
      location = run.url;
      extra = null;
    } else if (hasPlaceholders(link.url)) {
      const names = templateVariables(link.url);
      const given = rest ?? [];
      // More values than variables: a forwarding link passes the others on, any other link misses.
      if (given.length > names.length && !link.forwardPathAndQuery) return miss(slug, false);
      // Null: no value at all, for a link with a default destination (docs/links.md#default-destination).
      let values: readonly string[] | null;
      if (given.length === names.length && !given.includes('')) {
        // Every value in the path, as a template is mostly used: taken as they are.
        values = given;
        extra = null;
      } else {
        extra = link.forwardPathAndQuery ? given.slice(names.length) : null;
        params = query === '' ? null : new URLSearchParams(query);
        const found = names.map((name, i): string | null => {
          const positional = given[i];
          if (positional !== undefined && positional !== '') return positional;
          // A variable named in the query fills it (`go/jira?ticket=ABC-123`) and is not forwarded.
          const byName = params?.get(name.slice(1));
          if (byName === undefined || byName === null || byName === '') return null;
          params!.delete(name.slice(1));
          filledByName = true;
          return byName;
        });
        if (link.defaultUrl !== null && found.every((v) => v === null)) values = null;
        else if (found.includes(null)) return { kind: 'fill_in', slug, link, values: found };
        else values = found as string[];
      }
      const filled = values === null ? link.defaultUrl : fillTemplateSafely(link.url, values);
      if (filled === null) return miss(slug, false);
      location = filled;
    }
    if (link.forwardPathAndQuery && ((extra !== null && extra.length > 0) || query !== '')) {
      const forwarded = forwardPathAndQuery(location, extra ?? [], params ?? new URLSearchParams(query));
      if (forwarded === null) return miss(slug, false);
      location = forwarded;
    }
    const redirect = { kind: 'redirect', location, linkId: link.id, userId: who?.id ?? null, htmxAware: true } as const;
    return filledByName ? { ...redirect, filledByName: true } : redirect;
  }
}
