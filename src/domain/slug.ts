import { AppError } from './errors.js';

/**
 * The one list of reserved first path segments (docs/links.md#slugs). Every write
 * surface checks it, and a test fails if the router registers a top-level
 * route that is not listed here.
 */
export const RESERVED_SLUGS: readonly string[] = Object.freeze([
  'admin',
  'api',
  'auth',
  'dashboard',
  'healthz',
  'links',
  'mcp',
  'metrics',
  'notifications',
  'readyz',
  's',
  'static',
  'u',
]);
const RESERVED = new Set(RESERVED_SLUGS);

export const SLUG_MAX_LENGTH = 128;
/**
 * A name is at most this many segments joined by `/` (`blog/launch`, docs/links.md#slugs): enough
 * for the nested names other tools use, few enough that resolving a path tries a handful of
 * its prefixes at most.
 */
export const SLUG_MAX_SEGMENTS = 8;
/** One segment of a name: the whole of a one-segment slug. */
const SEGMENT = '[a-z0-9](?:[a-z0-9-]*[a-z0-9])?';
const SEGMENT_PATTERN = new RegExp(`^${SEGMENT}$`);
const SLUG_PATTERN = new RegExp(`^${SEGMENT}(?:/${SEGMENT}){0,${SLUG_MAX_SEGMENTS - 1}}$`);

/** The rule in one line, for the API's and the tools' descriptions of a slug field. */
export const SLUG_RULE_SUMMARY =
  `one to ${SLUG_MAX_SEGMENTS} segments joined by single "/" (blog/launch), each lower-case letters, digits and inner ` +
  `hyphens ([a-z0-9][a-z0-9-]*[a-z0-9]); at most ${SLUG_MAX_LENGTH} characters in all; the first segment not reserved`;

/** Whether `slug` is refused for its first segment: a reserved word, as `admin` or `admin/x`. */
export function isReservedSlug(slug: string): boolean {
  return RESERVED.has(firstSegment(slug));
}

function firstSegment(name: string): string {
  const slash = name.indexOf('/');
  return slash === -1 ? name : name.slice(0, slash);
}

/** True when `s` could be a stored slug; lets the resolver skip lookups that cannot hit. */
export function isSlugShaped(s: string): boolean {
  return s.length > 0 && s.length <= SLUG_MAX_LENGTH && SLUG_PATTERN.test(s);
}

/** True when `s` could be one segment of a stored name. */
export function isSegmentShaped(s: string): boolean {
  return s.length > 0 && s.length <= SLUG_MAX_LENGTH && SEGMENT_PATTERN.test(s);
}

/**
 * Write-time validation: strict, no case folding or normalisation. Returns the error message or null.
 * Aliases obey the same rules (docs/links.md#aliases); `noun` names which of the two is refused.
 * A name without `/` gets the one-segment messages, which programs may match on.
 */
export function slugError(slug: string, noun: 'slug' | 'alias' = 'slug'): string | null {
  if (slug.length > SLUG_MAX_LENGTH) return `${noun} must be at most ${SLUG_MAX_LENGTH} characters`;
  if (!slug.includes('/')) {
    if (!SEGMENT_PATTERN.test(slug)) return `${noun} must match [a-z0-9][a-z0-9-]*[a-z0-9]`;
    if (RESERVED.has(slug)) {
      return `${noun} is reserved and cannot be used: "${slug}" (reserved: ${RESERVED_SLUGS.join(', ')})`;
    }
    return null;
  }
  if (slug.split('/').length > SLUG_MAX_SEGMENTS) return `${noun} must have at most ${SLUG_MAX_SEGMENTS} segments`;
  if (!SLUG_PATTERN.test(slug)) {
    return `${noun} must be segments joined by single "/", each matching [a-z0-9][a-z0-9-]*[a-z0-9]`;
  }
  const first = firstSegment(slug);
  if (RESERVED.has(first)) {
    return `${noun} starts with a reserved word and cannot be used: "${first}" (reserved: ${RESERVED_SLUGS.join(', ')})`;
  }
  return null;
}

/**
 * The slug someone most likely meant by what they typed (docs/links.md#slug-suggestions):
 * lowercased, accents dropped, every run of other characters one hyphen, no hyphen at either
 * end, at most 128 characters. `Bad Slug!` → `bad-slug`, `Café Menu` → `cafe-menu`. A `/`
 * separates segments, each made a segment alike, empty ones dropped (`Blog/Launch` →
 * `blog/launch`); past the segments a name may have, the rest is joined with hyphens. Null
 * when nothing usable is left or the result is reserved. The web form's live check and its
 * messages both use this one function.
 */
export function suggestSlug(input: string): string | null {
  const folded = input
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase();
  const segments = folded
    .split('/')
    .map((s) => s.replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, ''))
    .filter((s) => s !== '');
  const kept = [...segments.slice(0, SLUG_MAX_SEGMENTS - 1), segments.slice(SLUG_MAX_SEGMENTS - 1).join('-')].filter((s) => s !== '');
  const cut = kept
    .join('/')
    .slice(0, SLUG_MAX_LENGTH)
    .replace(/[-/]+$/, '');
  return cut !== '' && slugError(cut) === null ? cut : null;
}

/** What the web form says about a slug it cannot use, in plain words, with the slug it may have meant. */
export interface SlugAdvice {
  message: string;
  /** A usable slug close to what was typed, offered as a one-click fix; null when there is none. */
  suggestion: string | null;
}

/**
 * The plain-language counterpart of `slugError` for people (docs/web-ui.md#link-forms); null
 * for a usable slug. The API keeps `slugError`'s messages, which programs may match on.
 */
export function slugAdvice(slug: string): SlugAdvice | null {
  if (slug === '') return { message: 'Choose a short name for the link.', suggestion: null };
  const error = slugError(slug);
  if (error === null) return null;
  if (RESERVED.has(slug)) return { message: `'${slug}' is used by the app. Choose another name.`, suggestion: null };
  const suggestion = suggestSlug(slug);
  if (slug.length > SLUG_MAX_LENGTH) {
    return { message: `That is too long: a short name has at most ${SLUG_MAX_LENGTH} characters.`, suggestion };
  }
  if (!slug.includes('/')) {
    return {
      message: 'A short name uses lowercase letters, digits and hyphens, and starts and ends with a letter or digit.',
      suggestion,
    };
  }
  if (SLUG_PATTERN.test(slug) && isReservedSlug(slug)) {
    return {
      message: `'${firstSegment(slug)}' is used by the app: a short name cannot start with it. Choose another name.`,
      suggestion: null,
    };
  }
  return {
    message:
      `A short name may have up to ${SLUG_MAX_SEGMENTS} parts joined by single slashes; each uses lowercase letters, ` +
      'digits and hyphens, and starts and ends with a letter or digit.',
    suggestion,
  };
}

export function assertValidSlug(slug: string): void {
  const msg = slugError(slug);
  if (msg) throw new AppError('INVALID_SLUG', msg, 'slug');
}

const TRAILING_PUNCTUATION = /[.,;:!?)]+$/;

/**
 * Resolution-only forgiveness for a single-segment miss (docs/links.md#forgiveness-and-did-you-mean):
 * `_`→`-`, then trailing punctuation stripped, then both. Empty candidates,
 * duplicates and the original are skipped.
 */
export function normalizationCandidates(path: string): string[] {
  const dashed = path.replace(/_/g, '-');
  const stripped = path.replace(TRAILING_PUNCTUATION, '');
  const both = dashed.replace(TRAILING_PUNCTUATION, '');
  const out: string[] = [];
  for (const c of [dashed, stripped, both]) {
    if (c !== '' && c !== path && !out.includes(c)) out.push(c);
  }
  return out;
}

/** What golink trims from the end of a name it cannot find (its `serveGo`), beyond TRAILING_PUNCTUATION. */
const GOLINK_TRAILING = /[.,;:!?()[\]{}]+$/;

/**
 * golink's forgiveness for a name that missed (docs/links.md#forgiveness-and-did-you-mean),
 * tried after normalizationCandidates: the name without golink's trailing punctuation
 * (`who]`), then with its dots made hyphens as an import makes them (`Foo.Bar` →
 * `foo-bar`, docs/import-formats.md#mapping). Only slug-shaped candidates not already
 * given are returned.
 */
export function golinkCandidates(path: string, tried: readonly string[] = []): string[] {
  const stripped = path.replace(GOLINK_TRAILING, '');
  const slugged = stripped.toLowerCase().replace(/\.+/g, '-');
  const out: string[] = [];
  for (const c of [stripped, slugged]) if (isSlugShaped(c) && c !== path && !tried.includes(c) && !out.includes(c)) out.push(c);
  return out;
}

/**
 * What golink's matching compares: a name without its hyphens (stored as `links.slug_key`). A
 * name with `/` keeps it, so its key never equals a one-segment key, which is all golink matches.
 */
export function slugKey(name: string): string {
  return name.replaceAll('-', '');
}

/**
 * The key golink matches names by (its `linkID`): lower case, hyphens ignored, so
 * `go/meetingnotes` opens `Meeting-Notes`. Null when nothing is left to match.
 */
export function hyphenlessKey(name: string): string | null {
  const key = slugKey(name);
  return /^[a-z0-9]+$/.test(key) && key.length <= SLUG_MAX_LENGTH ? key : null;
}
