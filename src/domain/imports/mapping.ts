import type { LinkRecord } from '../linkRecords.js';
import { isReservedSlug, RESERVED_SLUGS, SLUG_MAX_LENGTH, slugError } from '../slug.js';

/**
 * The rules that turn another tool's names into ours (docs/import-formats.md#mapping),
 * pure so the dry run and the real run decide alike.
 */

export type SlugMapping = { slug: string; changed: boolean } | { error: string };

/** One name as another tool wrote it made one segment: runs of what our rules refuse become `-`. */
function segmentOf(written: string): string {
  return written
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/**
 * A slug from a name as another tool wrote it: lower-cased, accents dropped,
 * every run of characters our slug rules refuse made one `-`, and `-` at
 * either end removed. A `/` between words stays a segment separator
 * (`blog/Launch` → `blog/launch`, docs/links.md#slugs) when the name it
 * makes is one we accept; otherwise it is joined like any other character.
 * A name that leaves nothing, is too long or is reserved cannot be made valid.
 */
export function importSlug(written: string): SlugMapping {
  if (written.includes('/')) {
    const nested = written
      .split('/')
      .map(segmentOf)
      .filter((s) => s !== '')
      .join('/');
    if (nested.includes('/') && slugError(nested) === null) return { slug: nested, changed: nested !== written };
  }
  const slug = segmentOf(written);
  if (slug === '') return { error: `"${written}" has no letters or digits to make a slug of` };
  if (slug.length > SLUG_MAX_LENGTH) return { error: `"${written}" makes a slug longer than ${SLUG_MAX_LENGTH} characters` };
  if (isReservedSlug(slug)) return { error: `"${slug}" is reserved and cannot be a slug (reserved: ${RESERVED_SLUGS.join(', ')})` };
  return { slug, changed: slug !== written };
}

/** Where in the file a slug was first claimed. */
export interface Claim {
  line: number;
  /** The name as the file wrote it. */
  written: string;
  /** Whether it was claimed as a link's slug or as an alias. */
  as: 'slug' | 'alias';
}

/**
 * The names one file claims, so that two rows landing on the same slug (as
 * written, or once our rules are applied) are a collision reported on the
 * second, never a silent merge.
 */
export class SlugLedger {
  private readonly claims = new Map<string, Claim>();

  /** The earlier claim on `slug`, if any. */
  earlier(slug: string): Claim | undefined {
    return this.claims.get(slug);
  }

  claim(slug: string, claim: Claim): void {
    if (!this.claims.has(slug)) this.claims.set(slug, claim);
  }
}

/** The reason a row is refused for a name an earlier row of the file already claimed. */
export function collisionReason(slug: string, earlier: Claim, as: 'slug' | 'alias'): string {
  const was = earlier.written === slug ? '' : ` (written "${earlier.written}")`;
  const what = as === 'slug' ? 'the slug' : 'the alias';
  return `${what} "${slug}" is already ${earlier.as === 'slug' ? 'the slug' : 'an alias'} of line ${earlier.line}${was}`;
}

/** The span of times the API reads (RFC 3339, years 1970 to 9999); anything outside is no real date. */
const EARLIEST = Date.UTC(1970, 0, 1);
const LATEST = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/**
 * Why a record's times cannot be stored, as the API would refuse them, or
 * null: each a whole, real moment between 1970 and 9999, a creation and an
 * archive time not after `now` (a link is not made or archived in the future).
 * An expiry in the past is kept: an export of an expired link imports back.
 */
export function importedTimesError(record: Pick<LinkRecord, 'createdAt' | 'expiresAt' | 'archivedAt'>, now: number): string | null {
  const checks: Array<[string, number | null | undefined, boolean]> = [
    ['created_at', record.createdAt, true],
    ['expires_at', record.expiresAt, false],
    ['archived_at', record.archivedAt, true],
  ];
  for (const [field, at, notAfterNow] of checks) {
    if (at === undefined || at === null) continue;
    if (!Number.isFinite(at) || at < EARLIEST || at > LATEST) return `${field} must be a date between 1970 and 9999`;
    if (notAfterNow && at > now) return `${field} must not be in the future`;
  }
  return null;
}
