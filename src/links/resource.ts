import type { LinkHealth } from '../domain/health.js';
import { lifecycleState, type LifecycleState } from '../domain/lifecycle.js';
import type { Visibility } from '../domain/caps.js';
import type { LinkOwner, LinkShare, LinkView } from '../store/types.js';

/**
 * The JSON shapes of a link and its members that REST and MCP both return
 * (docs/api.md#the-link-resource). Built once here so the two surfaces can
 * never disagree on a value; REST's response schemas are checked against
 * these types at compile time.
 */

export const iso = (ms: number): string => new Date(ms).toISOString();
export const isoOrNull = (ms: number | null): string | null => (ms === null ? null : iso(ms));

export interface OwnerResource {
  id: string;
  email: string;
  is_primary: boolean;
}

export interface HealthResource {
  status: LinkHealth['status'];
  last_checked_at: string | null;
  last_status: number | null;
}

export interface LinkResource {
  id: string;
  slug: string;
  url: string;
  title: string;
  description: string;
  visibility: Visibility;
  expires_at: string | null;
  archived_at: string | null;
  lifecycle_state: LifecycleState;
  health?: HealthResource;
  health_checks_disabled?: boolean;
  tags: string[];
  /** The link's other names, sorted (docs/links.md#aliases). */
  aliases: string[];
  /** docs/links.md#path-and-query-forwarding */
  forward_path_and_query: boolean;
  /** docs/links.md#default-destination */
  default_url: string | null;
  owners: OwnerResource[];
  created_at: string;
  updated_at: string;
}

export interface ShareResource {
  link_id: string;
  user_id: string;
  email: string;
  display_name: string;
  shared_by: string;
  created_at: string;
}

export function toOwnerResource(o: LinkOwner): OwnerResource {
  return { id: o.userId, email: o.email, is_primary: o.isPrimary };
}

export function toHealthResource(h: LinkHealth): HealthResource {
  return { status: h.status, last_checked_at: isoOrNull(h.lastCheckedAt), last_status: h.lastStatus };
}

/** `health` is passed only for callers holding CanView on the link; without it both health keys are left out. */
export function toLinkResource(link: LinkView, now: number, health: LinkHealth | undefined): LinkResource {
  const body: LinkResource = {
    id: link.id,
    slug: link.slug,
    url: link.url,
    title: link.title,
    description: link.description,
    visibility: link.visibility,
    expires_at: isoOrNull(link.expiresAt),
    archived_at: isoOrNull(link.archivedAt),
    lifecycle_state: lifecycleState(link, now),
    tags: link.tags.map((t) => t.name),
    aliases: [...link.aliases],
    forward_path_and_query: link.forwardPathAndQuery,
    default_url: link.defaultUrl,
    owners: link.owners.map(toOwnerResource),
    created_at: iso(link.createdAt),
    updated_at: iso(link.updatedAt),
  };
  if (health !== undefined) {
    body.health = toHealthResource(health);
    body.health_checks_disabled = link.healthChecksDisabled;
  }
  return body;
}

export function toShareResource(s: LinkShare): ShareResource {
  return {
    link_id: s.linkId,
    user_id: s.userId,
    email: s.email,
    display_name: s.displayName,
    shared_by: s.sharedBy,
    created_at: iso(s.createdAt),
  };
}
