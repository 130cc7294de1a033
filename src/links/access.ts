import type { LinkCaps } from '../domain/caps.js';
import { AppError } from '../domain/errors.js';
import type { Store } from '../store/index.js';
import type { Link } from '../store/types.js';
import { actorViewer, SYSTEM_CAPS, type Actor } from './actor.js';

/**
 * Loading a link for someone, with what they may do to it: the one access
 * function every surface uses (docs/links.md#capabilities). LinkCaps decides;
 * this only loads the facts and answers "not found", "forbidden" or "ok". An
 * unknown link is "not found" before any capability is considered, so a
 * stranger learns nothing about links they cannot see.
 */

export type Capability = keyof LinkCaps;

/** How a surface names a link: REST and the web by id, MCP and the CLI by slug, alias or id. */
export type LinkLookup = { id: string } | { slugOrId: string };

export type LinkAccess =
  | { outcome: 'ok'; link: Link; caps: LinkCaps; actor: Actor }
  | { outcome: 'forbidden'; link: Link; caps: LinkCaps }
  | { outcome: 'not_found' };

/** An access check that passed: what the application layer's writes accept in place of an id. */
export type GrantedLink = Extract<LinkAccess, { outcome: 'ok' }>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Ids are UUIDs; anything else cannot name a row and costs no query. */
export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}

export type AccessStore = Pick<Store, 'links' | 'access'>;

async function find(store: AccessStore, lookup: LinkLookup): Promise<Link | null> {
  if ('id' in lookup) return isUuid(lookup.id) ? store.links.get(lookup.id) : null;
  const ref = lookup.slugOrId.trim();
  if (ref === '') return null;
  // Stored names are lower case; a slug, then an alias, is tried before an id, as the resolver would.
  return (await store.links.getByName(ref.toLowerCase())) ?? (isUuid(ref) ? store.links.get(ref) : null);
}

export async function capsOf(store: AccessStore, actor: Actor, linkId: string): Promise<LinkCaps> {
  return actor.kind === 'system' ? SYSTEM_CAPS : store.access.caps(linkId, actorViewer(actor));
}

export async function accessLink(store: AccessStore, actor: Actor, lookup: LinkLookup, need: Capability): Promise<LinkAccess> {
  const link = await find(store, lookup);
  if (!link) return { outcome: 'not_found' };
  const caps = await capsOf(store, actor, link.id);
  return caps[need] ? { outcome: 'ok', link, caps, actor } : { outcome: 'forbidden', link, caps };
}

/** `accessLink` for callers that answer failures through the error vocabulary (NOT_FOUND, FORBIDDEN). */
export async function requireLink(store: AccessStore, actor: Actor, target: GrantedLink | string, need: Capability): Promise<GrantedLink> {
  // A grant made for this very actor already holds the answer; anything else is checked again.
  if (typeof target !== 'string' && target.actor === actor && target.caps[need]) return target;
  const access = await accessLink(store, actor, { id: typeof target === 'string' ? target : target.link.id }, need);
  if (access.outcome === 'not_found') throw new AppError('NOT_FOUND', 'link not found');
  if (access.outcome === 'forbidden') throw new AppError('FORBIDDEN', 'forbidden');
  return access;
}
