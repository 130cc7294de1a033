import { AppError } from '../../domain/errors.js';
import { validateDescription, validateExpiry, validateTitle, validateVisibility } from '../../domain/linkInput.js';
import { assertValidSlug } from '../../domain/slug.js';
import { normalizeTags } from '../../domain/tags.js';
import { parseRfc3339 } from '../../domain/timeseries.js';
import { validateDestination } from '../../domain/url.js';
import type { Store } from '../../store/index.js';
import type { LinkPatch } from '../../store/links.js';
import type { Link, LinkView, Viewer } from '../../store/types.js';
import { toLinkBody, type LinkBody } from './schemas.js';

/**
 * The link writes and reads that REST (`http/api/links.ts`) and MCP
 * (`mcp/linkTools.ts`) share, so both surfaces validate in the same order with
 * the same messages and shape links the same way (agents-and-extension.md
 * §1.6). Callers have already authorized through `store.access.caps`; the
 * deliberate divergences (MCP's default visibility, its partial update) are
 * decided by the caller before it gets here.
 */

const present = (v: string | undefined | null): v is string => v !== undefined && v !== null && v.trim() !== '';

/** The link resources of a list, `health` on exactly the rows the viewer holds CanView on. */
export async function linkBodies(store: Store, links: readonly LinkView[], viewer: Viewer): Promise<LinkBody[]> {
  const health = await store.health.visibleTo(links, viewer);
  const now = store.now();
  return links.map((l) => toLinkBody(l, now, health.get(l.id)));
}

/** A link for a caller already known to hold CanView: health included. */
export async function fullLinkBody(store: Store, view: LinkView): Promise<LinkBody> {
  return toLinkBody(view, store.now(), await store.health.forLink(view));
}

/** The message every malformed `expires_at` gets, on both surfaces. */
export const EXPIRES_AT_FORMAT = 'invalid request body: expires_at must be an RFC 3339 date-time with offset (e.g. 2030-01-02T15:04:05Z)';

/** `expires_at` as given: absent, null, or an RFC 3339 string (anything else is BAD_REQUEST). */
export function expiryOf(value: string | null | undefined): number | null | undefined {
  if (value === undefined || value === null) return value;
  const ms = parseRfc3339(value);
  if (ms === null) throw new AppError('BAD_REQUEST', EXPIRES_AT_FORMAT, 'expires_at');
  return ms;
}

export interface NewLinkRequest {
  slug?: string;
  url?: string;
  title?: string;
  description?: string;
  visibility?: string;
  tags?: readonly string[];
  /** RFC 3339, or null/absent for never. */
  expiresAt?: string | null;
  healthChecksDisabled?: boolean;
  /** User ids granted a share in the same transaction (already resolved by the caller). */
  shareWith?: readonly string[];
}

/**
 * Creates a link owned by `ownerId` (api.md §6.7): presence checks, then
 * slug → URL → lengths → tags → visibility → expiry, so a request with
 * several faults reports the first one in that order; then one transaction
 * writes the row, primary ownership, tags and shares.
 */
export async function createLink(store: Store, ownerId: string, input: NewLinkRequest): Promise<LinkView> {
  if (!present(input.slug)) throw new AppError('BAD_REQUEST', 'slug is required', 'slug');
  if (!present(input.url)) throw new AppError('BAD_REQUEST', 'url is required', 'url');
  assertValidSlug(input.slug);
  validateDestination(input.url);
  validateTitle(input.title);
  validateDescription(input.description);
  normalizeTags(input.tags ?? []);
  validateVisibility(input.visibility);
  const expiresAt = expiryOf(input.expiresAt) ?? null;
  validateExpiry(expiresAt, store.now());
  return store.links.create(
    {
      slug: input.slug,
      url: input.url,
      title: input.title,
      description: input.description,
      visibility: input.visibility,
      tags: input.tags ?? [],
      expiresAt,
    },
    ownerId,
    { healthChecksDisabled: input.healthChecksDisabled === true, shareWith: input.shareWith },
  );
}

/** Changes to a link; `undefined` leaves a field as stored. */
export interface LinkChanges {
  url?: string;
  title?: string;
  description?: string;
  /** Empty keeps the stored value. */
  visibility?: string;
  tags?: readonly string[];
  /** RFC 3339 sets, null clears, absent keeps. */
  expiresAt?: string | null;
  archived?: boolean;
  healthChecksDisabled?: boolean;
}

const CONTENT_FIELDS = ['url', 'title', 'description', 'visibility', 'tags', 'expiresAt'] as const;

/**
 * Applies `changes` to a link the caller may edit (api.md §6.9, lifecycle.md
 * §12). With no content field present only the two toggles apply, through the
 * same conditional writes as the web's archive buttons, so re-archiving keeps
 * the first `archived_at` and a no-op changes nothing. Otherwise every given
 * field is validated in REST's order before one transaction writes row and
 * tags together.
 */
export async function changeLink(store: Store, link: Link, changes: LinkChanges): Promise<LinkView> {
  if (!CONTENT_FIELDS.some((f) => changes[f] !== undefined)) {
    return store.links.setLifecycle(link.id, { archived: changes.archived, healthChecksDisabled: changes.healthChecksDisabled });
  }
  if (changes.url !== undefined) validateDestination(changes.url);
  if (changes.title !== undefined) validateTitle(changes.title);
  if (changes.description !== undefined) validateDescription(changes.description);
  if (changes.tags !== undefined) normalizeTags(changes.tags);
  const patch: LinkPatch = {
    url: changes.url,
    title: changes.title,
    description: changes.description,
    tags: changes.tags,
    archived: changes.archived,
    healthChecksDisabled: changes.healthChecksDisabled,
  };
  if (changes.visibility !== undefined && changes.visibility !== '') patch.visibility = validateVisibility(changes.visibility);
  const expiresAt = expiryOf(changes.expiresAt);
  if (expiresAt !== undefined) patch.expiresAt = validateExpiry(expiresAt, store.now(), link.expiresAt);
  return store.links.update(link.id, patch);
}
