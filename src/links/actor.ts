import { linkCaps, type LinkCaps } from '../domain/caps.js';
import { AppError } from '../domain/errors.js';
import type { User, Viewer } from '../store/types.js';
import type { EventActor } from './events.js';

/** The surface a signed-in user made a change through, as history records it (docs/history.md#who-and-where). */
export type Surface = 'web' | 'api' | 'mcp';

/**
 * Who is making a change: a signed-in user (web, REST, MCP), or the server
 * itself on an operator's behalf (the CLI), which holds every capability on
 * every link, as an admin does. `onBehalfOf` only names, for the history, the
 * user an operator said the change is for; it grants and limits nothing.
 */
export type Actor = { kind: 'user'; user: User; via?: Surface } | { kind: 'system'; via: string; onBehalfOf?: User };

export const asUser = (user: User, via?: Surface): Actor => (via ? { kind: 'user', user, via } : { kind: 'user', user });
export const asSystem = (via: string, onBehalfOf?: User): Actor =>
  onBehalfOf ? { kind: 'system', via, onBehalfOf } : { kind: 'system', via };

/** The actor as the access rules see it; null for the system, which is never asked for facts. */
export function actorViewer(actor: Actor): Viewer {
  return actor.kind === 'user' ? { id: actor.user.id, isAdmin: actor.user.role === 'admin' } : null;
}

/** The system's capabilities: those of an admin. */
export const SYSTEM_CAPS: LinkCaps = linkCaps({ isOwner: false, hasShare: false, isAdmin: true });

export function eventActor(actor: Actor): EventActor {
  if (actor.kind === 'user') {
    const { id, email, displayName } = actor.user;
    return actor.via ? { kind: 'user', id, email, displayName, via: actor.via } : { kind: 'user', id, email, displayName };
  }
  if (!actor.onBehalfOf) return { kind: 'system', via: actor.via };
  const u = actor.onBehalfOf;
  return { kind: 'system', via: actor.via, onBehalfOf: { userId: u.id, email: u.email, displayName: u.displayName } };
}

/**
 * Accounts and keywords are managed by admins and by the operator (the CLI);
 * anyone else is FORBIDDEN with `message`.
 */
export function requireAdministrator(actor: Actor, message: string): void {
  if (actor.kind === 'user' && actor.user.role !== 'admin') throw new AppError('FORBIDDEN', message);
}
