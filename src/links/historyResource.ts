import type { HistoryEvent, HistoryKind, HistoryPerson } from './history.js';
import { iso } from './resource.js';

/**
 * The JSON shape of a history event that REST and MCP both return
 * (docs/api.md#link-history): field names as the REST link body spells them,
 * times as RFC 3339. Built generically from the stored changes, so a field
 * added to links later appears here without a change.
 */

export interface PersonResource {
  id: string;
  email: string;
  display_name: string;
}

export type ChangeValue = unknown;

export interface HistoryEventResource {
  id: string;
  at: string;
  kind: HistoryKind;
  actor: PersonResource | null;
  via: string | null;
  changes: Record<string, { from: ChangeValue; to: ChangeValue }>;
  member: PersonResource | null;
  group: { id: string; name: string } | null;
  source: string | null;
  restores: { event_id: string; at: string } | null;
}

export interface AuditEventResource extends HistoryEventResource {
  link_id: string;
  slug: string;
}

/** `expiresAt` → `expires_at`: the REST body's name of a LinkFields field. */
export function restFieldName(field: string): string {
  return field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

export function toPersonResource(p: HistoryPerson): PersonResource {
  return { id: p.id, email: p.email, display_name: p.displayName };
}

function isPerson(v: unknown): v is HistoryPerson {
  return typeof v === 'object' && v !== null && typeof (v as HistoryPerson).id === 'string' && 'email' in v;
}

/** A value as the link body writes it: times (`…At` fields hold epoch ms) as RFC 3339, people as person objects. */
function restValue(field: string, value: unknown): ChangeValue {
  if (field.endsWith('At') && typeof value === 'number') return iso(value);
  if (isPerson(value)) return toPersonResource(value);
  return value;
}

export function toHistoryEventResource(e: HistoryEvent): HistoryEventResource {
  const changes: HistoryEventResource['changes'] = {};
  for (const [field, c] of Object.entries(e.changes)) {
    changes[restFieldName(field)] = { from: restValue(field, c.from), to: restValue(field, c.to) };
  }
  return {
    id: e.id,
    at: iso(e.at),
    kind: e.kind,
    actor: e.actor ? toPersonResource(e.actor) : null,
    via: e.via,
    changes,
    member: e.member ? toPersonResource(e.member) : null,
    group: e.group,
    source: e.source,
    restores: e.restores ? { event_id: e.restores.eventId, at: iso(e.restores.at) } : null,
  };
}

export function toAuditEventResource(e: HistoryEvent): AuditEventResource {
  return { ...toHistoryEventResource(e), link_id: e.linkId, slug: e.slug };
}
