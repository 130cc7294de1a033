import { isReservedSlug, RESERVED_SLUGS, SLUG_MAX_LENGTH } from '../slug.js';

/**
 * The rules that turn another tool's names into ours (docs/import-formats.md#mapping),
 * pure so the dry run and the real run decide alike.
 */

export type SlugMapping = { slug: string; changed: boolean } | { error: string };

/**
 * A slug from a name as another tool wrote it: lower-cased, accents dropped,
 * every run of characters our slug rules refuse made one `-`, and `-` at
 * either end removed. A name that leaves nothing, is too long or is reserved
 * cannot be made valid.
 */
export function importSlug(written: string): SlugMapping {
  const slug = written
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
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
