import type { LinkResource } from '../links/index.js';

/**
 * MCP's link shapes (docs/agents.md#mcp-tools), built from the REST link
 * resource so values, lifecycle fields and health gating are REST's own
 * (docs/lifecycle.md#lifecycle-over-rest-and-mcp). The differences are presentational: `short_url` is
 * added, and empty optional members are left out (absent `health` = not capable).
 * The lifecycle times are always written, as REST writes them: its RFC 3339
 * string, or `null` when unset (docs/agents.md#mcp-tools).
 */

export type Payload = Record<string, unknown>;

/** `{scheme}://{Host}/{slug}`, the origin computed as the web UI computes it. */
export function shortUrl(origin: string, slug: string): string {
  return `${origin}/${slug}`;
}

function putIfSet(out: Payload, key: string, value: string | null | undefined): void {
  if (value !== null && value !== undefined && value !== '') out[key] = value;
}

/** Copied as they are, `null` included, so MCP and REST never differ on a lifecycle time. */
function putLifecycleTimes(out: Payload, body: LinkResource): void {
  out.expires_at = body.expires_at;
  out.archived_at = body.archived_at;
}

function putHealth(out: Payload, body: LinkResource): void {
  if (body.health === undefined) return;
  out.health = body.health;
  out.health_checks_disabled = body.health_checks_disabled;
}

/**
 * The link payload: `shared_with` is passed only for CanManageShares callers
 * (emails, sorted), so share recipients never see the roster.
 */
export function linkPayload(body: LinkResource, origin: string, sharedWith?: readonly string[]): Payload {
  const out: Payload = { id: body.id, slug: body.slug, short_url: shortUrl(origin, body.slug), url: body.url };
  putIfSet(out, 'title', body.title);
  putIfSet(out, 'description', body.description);
  out.visibility = body.visibility;
  out.lifecycle_state = body.lifecycle_state;
  putLifecycleTimes(out, body);
  if (body.tags.length > 0) out.tags = body.tags;
  if (body.aliases.length > 0) out.aliases = body.aliases;
  out.forward_path_and_query = body.forward_path_and_query;
  putIfSet(out, 'default_url', body.default_url);
  if (body.owners.length > 0) out.owners = body.owners;
  putHealth(out, body);
  if (sharedWith && sharedWith.length > 0) out.shared_with = [...sharedWith].sort();
  out.created_at = body.created_at;
  out.updated_at = body.updated_at;
  return out;
}

/** A row of `list_links`: the link's identity, destination, text, visibility and lifecycle. */
export function listItemPayload(body: LinkResource, origin: string): Payload {
  const out: Payload = { id: body.id, slug: body.slug, short_url: shortUrl(origin, body.slug), url: body.url };
  putIfSet(out, 'title', body.title);
  putIfSet(out, 'description', body.description);
  out.visibility = body.visibility;
  putLifecycleTimes(out, body);
  out.lifecycle_state = body.lifecycle_state;
  putHealth(out, body);
  return out;
}
