import { VISIBILITIES, type Visibility } from './caps.js';
import { AppError } from './errors.js';
import { assertValidSlug } from './slug.js';
import { normalizeTags, type TagInput } from './tags.js';
import { codePointLength } from './text.js';
import { validateDestination } from './url.js';

export const TITLE_MAX = 200;
export const DESCRIPTION_MAX = 2000;

export interface NewLinkInput {
  slug: string;
  url: string;
  title?: string | null;
  description?: string | null;
  visibility?: string | null;
  tags?: readonly string[];
  expiresAt?: number | null;
}

export interface ValidLink {
  slug: string;
  url: string;
  title: string;
  description: string;
  visibility: Visibility;
  tags: TagInput[];
  expiresAt: number | null;
}

export function validateTitle(title: string | null | undefined): string {
  const t = title ?? '';
  if (codePointLength(t) > TITLE_MAX) {
    throw new AppError('INVALID_FIELD_LENGTH', `title must be at most ${TITLE_MAX} characters`, 'title');
  }
  return t;
}

export function validateDescription(description: string | null | undefined): string {
  const d = description ?? '';
  if (codePointLength(d) > DESCRIPTION_MAX) {
    throw new AppError('INVALID_FIELD_LENGTH', `description must be at most ${DESCRIPTION_MAX} characters`, 'description');
  }
  return d;
}

/** Empty means public on create (core.md §5). */
export function validateVisibility(v: string | null | undefined): Visibility {
  if (v === undefined || v === null || v === '') return 'public';
  if (!(VISIBILITIES as readonly string[]).includes(v)) {
    throw new AppError('INVALID_VISIBILITY', 'visibility must be one of: public, private, secure', 'visibility');
  }
  return v as Visibility;
}

/** Whole-second UTC; a new value must lie in the future unless it equals the stored one (core.md §5). */
export function validateExpiry(expiresAt: number | null | undefined, now: number, stored: number | null = null): number | null {
  if (expiresAt === undefined || expiresAt === null) return null;
  const whole = Math.floor(expiresAt / 1000) * 1000;
  if (stored !== null && whole === stored) return whole;
  if (!Number.isFinite(whole) || whole <= now) {
    throw new AppError('INVALID_EXPIRES_AT', 'expiration must be in the future', 'expires_at');
  }
  return whole;
}

/** Every rule of core.md §5 for a new link, checked before any write. */
export function validateNewLink(input: NewLinkInput, now: number): ValidLink {
  assertValidSlug(input.slug);
  return {
    slug: input.slug,
    url: validateDestination(input.url),
    title: validateTitle(input.title),
    description: validateDescription(input.description),
    visibility: validateVisibility(input.visibility),
    tags: normalizeTags(input.tags ?? []),
    expiresAt: validateExpiry(input.expiresAt, now),
  };
}
