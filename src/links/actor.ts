import { linkCaps, type LinkCaps } from '../domain/caps.js';
import type { User, Viewer } from '../store/types.js';
import type { EventActor } from './events.js';

/**
 * Who is making a change: a signed-in user (web, REST, MCP), or the server
 * itself on an operator's behalf (the CLI), which holds every capability on
 * every link, as an admin does.
 */
export type Actor = { kind: 'user'; user: User } | { kind: 'system'; via: string };

export const asUser = (user: User): Actor => ({ kind: 'user', user });
export const asSystem = (via: string): Actor => ({ kind: 'system', via });

/** The actor as the access rules see it; null for the system, which is never asked for facts. */
export function actorViewer(actor: Actor): Viewer {
  return actor.kind === 'user' ? { id: actor.user.id, isAdmin: actor.user.role === 'admin' } : null;
}

/** The system's capabilities: those of an admin. */
export const SYSTEM_CAPS: LinkCaps = linkCaps({ isOwner: false, hasShare: false, isAdmin: true });

export function eventActor(actor: Actor): EventActor {
  return actor.kind === 'user'
    ? { kind: 'user', id: actor.user.id, email: actor.user.email, displayName: actor.user.displayName }
    : { kind: 'system', via: actor.via };
}
