import { normalizeAliases } from './aliases.js';
import { VISIBILITIES, type Visibility } from './caps.js';
import { AppError } from './errors.js';
import { refuseNul } from './nul.js';
import { assertValidSlug } from './slug.js';
import { normalizeTags, type TagInput } from './tags.js';
import { codePointLength } from './text.js';
import { parseRfc3339 } from './timeseries.js';
import { hasPlaceholders, validateDestination } from './url.js';
import { isGolinkTemplate } from './golinkTemplate.js';

/**
 * The rules every link write obeys, whatever surface it came from. The links
 * application layer (src/links/) is their only caller; surfaces turn their
 * own input format into these shapes and map the errors back.
 */

export const TITLE_MAX = 200;
export const DESCRIPTION_MAX = 2000;

/**
 * A field value a surface could not read (an unparseable date, say). It is
 * reported in the field's place in the validation order, so a request with
 * several faults always names the same first one.
 */
export class Unreadable {
  constructor(readonly error: AppError) {}
}

/** `expires_at` as given: absent (keep), null (never), epoch ms, or a value that could not be read. */
export type ExpiryInput = number | null | undefined | Unreadable;

/** The message every malformed RFC 3339 `expires_at` gets, on every JSON surface. */
export const EXPIRES_AT_FORMAT = 'invalid request body: expires_at must be an RFC 3339 date-time with offset (e.g. 2030-01-02T15:04:05Z)';

/** An RFC 3339 `expires_at` from a JSON body: absent and null pass through; anything unparseable is Unreadable. */
export function expiryFromRfc3339(value: string | null | undefined): ExpiryInput {
  if (value === undefined || value === null) return value;
  const ms = parseRfc3339(value);
  return ms === null ? new Unreadable(new AppError('BAD_REQUEST', EXPIRES_AT_FORMAT, 'expires_at')) : ms;
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

/** Empty means public on create (docs/links.md). */
export function validateVisibility(v: string | null | undefined): Visibility {
  if (v === undefined || v === null || v === '') return 'public';
  if (!(VISIBILITIES as readonly string[]).includes(v)) {
    throw new AppError('INVALID_VISIBILITY', `visibility must be one of: ${VISIBILITIES.join(', ')}`, 'visibility');
  }
  return v as Visibility;
}

/**
 * Whole-second UTC; a new value must lie in the future unless it equals the
 * stored one, so re-saving a link whose expiry has passed is not refused.
 */
export function validateExpiry(expiresAt: ExpiryInput, now: number, stored: number | null = null): number | null {
  if (expiresAt instanceof Unreadable) throw expiresAt.error;
  if (expiresAt === undefined || expiresAt === null) return null;
  const whole = Math.floor(expiresAt / 1000) * 1000;
  if (stored !== null && whole === stored) return whole;
  if (!Number.isFinite(whole) || whole <= now) {
    throw new AppError('INVALID_EXPIRES_AT', 'expiration must be in the future', 'expires_at');
  }
  return whole;
}

const present = (v: string | null | undefined): v is string => v !== undefined && v !== null && v.trim() !== '';

/** A `$name` template (docs/links.md#destinations-and-templates): the only kind of link a default destination belongs to. */
const isVariableTemplate = (url: string): boolean => hasPlaceholders(url) && !isGolinkTemplate(url);

/**
 * A templated link's default destination (docs/links.md#default-destination): blank or null
 * is none; anything else meets every rule `url` meets, and is one fixed destination itself.
 */
export function validateDefaultUrl(raw: string | null | undefined): string | null {
  if (!present(raw)) return null;
  const url = validateDestination(raw, 'default_url');
  if (hasPlaceholders(url) || isGolinkTemplate(url)) {
    throw new AppError('INVALID_URL', 'default_url must be one destination, without placeholders', 'default_url');
  }
  return url;
}

/**
 * A default destination stands only beside a `$name` template: a plain link goes to its
 * `url` whenever it is visited, so a default there would never be used. An update that
 * takes the placeholders out of `url` is refused while a default stays, rather than
 * dropping the default unasked.
 */
export function assertDefaultFits(url: string, defaultUrl: string | null): void {
  if (defaultUrl !== null && !isVariableTemplate(url)) {
    throw new AppError(
      'INVALID_URL',
      'default_url is only for a url with $placeholders; clear it or keep placeholders in url',
      'default_url',
    );
  }
}

/** A new link as a surface received it. */
export interface LinkDraft {
  slug?: string | null;
  url?: string | null;
  title?: string | null;
  description?: string | null;
  /** Empty or absent: public. */
  visibility?: string | null;
  tags?: readonly string[];
  expiresAt?: ExpiryInput;
  /** More names of the link (docs/links.md#aliases). */
  aliases?: readonly string[];
  /** Append a visit's extra path and query to the destination (docs/links.md#path-and-query-forwarding). */
  forwardPathAndQuery?: boolean;
  /** Where a templated link goes when visited with no value (docs/links.md#default-destination); blank: none. */
  defaultUrl?: string | null;
}

export interface ValidLink {
  slug: string;
  url: string;
  title: string;
  description: string;
  visibility: Visibility;
  tags: TagInput[];
  aliases: string[];
  expiresAt: number | null;
  forwardPathAndQuery: boolean;
  defaultUrl: string | null;
}

/** A link's text fields as given, in the order the rules check them: what the NUL rule looks at. */
function changedText(d: LinkDraft | LinkChanges): Array<readonly [string, unknown]> {
  return [
    ['url', d.url],
    ['default_url', d.defaultUrl],
    ['title', d.title],
    ['description', d.description],
    ['tags', d.tags],
    ['aliases', d.aliases],
    ['visibility', d.visibility],
  ];
}

/**
 * Every rule for a new link, checked before any write, first failure wins:
 * a NUL character in any field (domain/nul.ts), presence of slug and url,
 * then slug → URL → default URL → title → description → tags → aliases →
 * visibility → expiry.
 */
export function validateLinkDraft(draft: LinkDraft, now: number): ValidLink {
  refuseNul([['slug', draft.slug], ...changedText(draft)]);
  if (!present(draft.slug)) throw new AppError('BAD_REQUEST', 'slug is required', 'slug');
  if (!present(draft.url)) throw new AppError('BAD_REQUEST', 'url is required', 'url');
  assertValidSlug(draft.slug);
  const url = validateDestination(draft.url);
  const defaultUrl = validateDefaultUrl(draft.defaultUrl);
  assertDefaultFits(url, defaultUrl);
  return {
    slug: draft.slug,
    url,
    title: validateTitle(draft.title),
    description: validateDescription(draft.description),
    tags: normalizeTags(draft.tags ?? []),
    aliases: normalizeAliases(draft.aliases ?? [], draft.slug),
    visibility: validateVisibility(draft.visibility),
    expiresAt: validateExpiry(draft.expiresAt, now),
    forwardPathAndQuery: draft.forwardPathAndQuery === true,
    defaultUrl,
  };
}

/** Changes to a link; `undefined` leaves a field as stored. */
export interface LinkChanges {
  url?: string;
  title?: string;
  description?: string;
  tags?: readonly string[];
  /** Empty keeps the stored value. */
  visibility?: string;
  /** Null clears the expiry; absent keeps it. */
  expiresAt?: ExpiryInput;
  archived?: boolean;
  healthChecksDisabled?: boolean;
  /** Replaces every alias; absent keeps them. */
  aliases?: readonly string[];
  forwardPathAndQuery?: boolean;
  /** Blank or null clears it; absent keeps it. */
  defaultUrl?: string | null;
}

export interface ValidChanges {
  url?: string;
  title?: string;
  description?: string;
  tags?: TagInput[];
  aliases?: string[];
  visibility?: Visibility;
  expiresAt?: number | null;
  archived?: boolean;
  healthChecksDisabled?: boolean;
  forwardPathAndQuery?: boolean;
  defaultUrl?: string | null;
}

/**
 * Every given field checked in the create order (NUL characters, then URL →
 * default URL → title → description → tags → aliases → visibility → expiry),
 * against the link as stored.
 */
export function validateLinkChanges(
  changes: LinkChanges,
  stored: { slug: string; expiresAt: number | null; url: string; defaultUrl: string | null },
  now: number,
): ValidChanges {
  refuseNul(changedText(changes));
  const out: ValidChanges = {};
  if (changes.url !== undefined) {
    if (!present(changes.url)) throw new AppError('BAD_REQUEST', 'url is required', 'url');
    out.url = validateDestination(changes.url);
  }
  if (changes.defaultUrl !== undefined) out.defaultUrl = validateDefaultUrl(changes.defaultUrl);
  if (out.url !== undefined || out.defaultUrl !== undefined) {
    assertDefaultFits(out.url ?? stored.url, out.defaultUrl !== undefined ? out.defaultUrl : stored.defaultUrl);
  }
  if (changes.title !== undefined) out.title = validateTitle(changes.title);
  if (changes.description !== undefined) out.description = validateDescription(changes.description);
  if (changes.tags !== undefined) out.tags = normalizeTags(changes.tags);
  if (changes.aliases !== undefined) out.aliases = normalizeAliases(changes.aliases, stored.slug);
  if (changes.visibility !== undefined && changes.visibility !== '') out.visibility = validateVisibility(changes.visibility);
  if (changes.expiresAt !== undefined) out.expiresAt = validateExpiry(changes.expiresAt, now, stored.expiresAt);
  if (changes.archived !== undefined) out.archived = changes.archived;
  if (changes.healthChecksDisabled !== undefined) out.healthChecksDisabled = changes.healthChecksDisabled;
  if (changes.forwardPathAndQuery !== undefined) out.forwardPathAndQuery = changes.forwardPathAndQuery;
  return out;
}
