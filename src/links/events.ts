import type { Visibility } from '../domain/caps.js';

/**
 * What the links application layer tells the rest of the system after a
 * change has committed: one typed event per change, whatever surface made it.
 * Subscribers are registered once at startup; they run after the transaction,
 * so a slow or failing subscriber can neither undo a change nor delay it.
 */

/** The fields of a link whose before/after an event carries. */
export interface LinkFields {
  url: string;
  title: string;
  description: string;
  /** Tag display names, in the order the link lists them. */
  tags: string[];
  /** The link's other names, sorted (docs/links.md#aliases). */
  aliases: string[];
  visibility: Visibility;
  expiresAt: number | null;
  archivedAt: number | null;
  healthChecksDisabled: boolean;
  forwardPathAndQuery: boolean;
  /** docs/links.md#default-destination */
  defaultUrl: string | null;
}

export type LinkField = keyof LinkFields;

/** Before and after of each field that changed; fields that kept their value are absent. */
export type FieldChanges = { [F in LinkField]?: { from: LinkFields[F] | null; to: LinkFields[F] | null } };

/** The user an owner or share event is about. */
export interface EventMember {
  userId: string;
  email: string;
  displayName: string;
}

/** The group an owner or share event is about (docs/groups.md). */
export interface EventGroup {
  groupId: string;
  name: string;
}

/**
 * Who made a change: a signed-in user with the surface they used (`web`,
 * `api`, `mcp`; absent when a caller did not say), or the server itself
 * (CLI, jobs) with the surface named and, when the operator named one, the
 * user the change is made for (`joe-links links … --as EMAIL`).
 */
export type EventActor =
  | { kind: 'user'; id: string; email: string; displayName: string; via?: string }
  | { kind: 'system'; via: string; onBehalfOf?: EventMember };

/** An owner of a deleted link, as it was owned when it went. */
export interface EventOwner extends EventMember {
  isPrimary: boolean;
}

interface EventBase {
  linkId: string;
  slug: string;
  /** Epoch ms of the change, from the layer's clock. */
  at: number;
  actor: EventActor;
}

export type LinkEvent =
  /** A new link; `changes` holds every field, each from null. `source` names an import's format. */
  | (EventBase & { kind: 'created'; changes: FieldChanges; source?: string })
  | (EventBase & { kind: 'updated' | 'archived' | 'unarchived' | 'renewed'; changes: FieldChanges; source?: string })
  | (EventBase & { kind: 'owner_added' | 'owner_removed' | 'share_added' | 'share_removed'; member: EventMember })
  /** A group became, or stopped being, an owner or a share recipient of the link. */
  | (EventBase & { kind: GroupMemberKind; group: EventGroup })
  /**
   * The fields were put back to what they were right after an earlier event
   * of the same link (docs/history.md#restoring-a-version): `restores` names it.
   */
  | (EventBase & { kind: 'restored'; changes: FieldChanges; restores: { eventId: string; at: number } })
  /** The primary ownership moved (the previous primary owner's account was deleted). */
  | (EventBase & { kind: 'transferred'; from: EventMember; to: EventMember })
  /**
   * The link is gone; `changes` holds its last fields, each to null, `owners`
   * who owned it (primary first) and `createdAt` when it was made, since
   * nothing can read them once the change has run.
   */
  | (EventBase & { kind: 'deleted'; changes: FieldChanges; owners: EventOwner[]; createdAt: number });

export type LinkEventKind = LinkEvent['kind'];

export type GroupMemberKind = 'group_owner_added' | 'group_owner_removed' | 'group_share_added' | 'group_share_removed';

export function ownerOfEvent(o: { userId: string; email: string; displayName: string; isPrimary: boolean }): EventOwner {
  return { userId: o.userId, email: o.email, displayName: o.displayName, isPrimary: o.isPrimary };
}

const FIELD_ORDER: readonly LinkField[] = [
  'url',
  'defaultUrl',
  'title',
  'description',
  'tags',
  'aliases',
  'visibility',
  'expiresAt',
  'archivedAt',
  'healthChecksDisabled',
  'forwardPathAndQuery',
];

function same(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => v === b[i]);
  return a === b;
}

/** The fields that differ between two states of a link (null: the link did not exist on that side). */
export function fieldChanges(before: LinkFields | null, after: LinkFields | null): FieldChanges {
  const out: Record<string, { from: unknown; to: unknown }> = {};
  for (const f of FIELD_ORDER) {
    const from = before ? before[f] : null;
    const to = after ? after[f] : null;
    if (!same(from, to)) out[f] = { from, to };
  }
  return out as FieldChanges;
}

export type LinkEventListener = (event: LinkEvent) => void | Promise<void>;

/**
 * Delivers committed events to the listeners registered at startup. A
 * listener that throws or rejects is reported to `onError` and never reaches
 * the caller of the change; `idle()` resolves once every delivery so far has
 * settled, so tests and shutdown can wait for quiet without sleeping.
 */
export class LinkEventBus {
  private readonly listeners: LinkEventListener[] = [];
  private readonly pending = new Set<Promise<void>>();

  constructor(private readonly onError: (err: unknown, event: LinkEvent) => void = () => {}) {}

  /** Adds a listener; returns the function that removes it. */
  subscribe(listener: LinkEventListener): () => void {
    this.listeners.push(listener);
    return () => {
      const i = this.listeners.indexOf(listener);
      if (i !== -1) this.listeners.splice(i, 1);
    };
  }

  /** Called by the layer after a transaction commits, with its events in the order they happened. */
  publish(events: readonly LinkEvent[]): void {
    for (const event of events) {
      for (const listener of [...this.listeners]) this.deliver(listener, event);
    }
  }

  async idle(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  private deliver(listener: LinkEventListener, event: LinkEvent): void {
    let result: void | Promise<void>;
    try {
      result = listener(event);
    } catch (err) {
      this.onError(err, event);
      return;
    }
    if (!(result instanceof Promise)) return;
    const settled = result.catch((err: unknown) => this.onError(err, event)).finally(() => this.pending.delete(settled));
    this.pending.add(settled);
  }
}
