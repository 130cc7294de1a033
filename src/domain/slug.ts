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
  'readyz',
  's',
  'static',
  'u',
]);
const RESERVED = new Set(RESERVED_SLUGS);

export const SLUG_MAX_LENGTH = 128;
const SLUG_PATTERN = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;

export function isReservedSlug(slug: string): boolean {
  return RESERVED.has(slug);
}

/** True when `s` could be a stored slug; lets the resolver skip lookups that cannot hit. */
export function isSlugShaped(s: string): boolean {
  return s.length > 0 && s.length <= SLUG_MAX_LENGTH && SLUG_PATTERN.test(s);
}

/**
 * Write-time validation: strict, no case folding or normalisation. Returns the error message or null.
 * Aliases obey the same rules (docs/links.md#aliases); `noun` names which of the two is refused.
 */
export function slugError(slug: string, noun: 'slug' | 'alias' = 'slug'): string | null {
  if (slug.length > SLUG_MAX_LENGTH) return `${noun} must be at most ${SLUG_MAX_LENGTH} characters`;
  if (!SLUG_PATTERN.test(slug)) return `${noun} must match [a-z0-9][a-z0-9-]*[a-z0-9]`;
  if (RESERVED.has(slug)) {
    return `${noun} is reserved and cannot be used: "${slug}" (reserved: ${RESERVED_SLUGS.join(', ')})`;
  }
  return null;
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
