/**
 * LinkCaps: the single source of per-link authorization for web, REST and MCP
 * (docs/links.md#capabilities). Pure: the store loads the three facts, this decides.
 */
export interface LinkFacts {
  isOwner: boolean;
  hasShare: boolean;
  isAdmin: boolean;
}

export interface LinkCaps {
  canView: boolean;
  canStats: boolean;
  canEdit: boolean;
  canDelete: boolean;
  canManageShares: boolean;
}

export const CAPABILITIES = ['canView', 'canStats', 'canEdit', 'canDelete', 'canManageShares'] as const;

export const NO_CAPS: LinkCaps = Object.freeze({
  canView: false,
  canStats: false,
  canEdit: false,
  canDelete: false,
  canManageShares: false,
});

export function linkCaps(facts: LinkFacts): LinkCaps {
  const manage = facts.isOwner || facts.isAdmin;
  const view = manage || facts.hasShare;
  return { canView: view, canStats: view, canEdit: manage, canDelete: manage, canManageShares: manage };
}

/**
 * `internal` is "anyone signed in": what other tools' workspace-wide links
 * were, so an import never opens such a link to the world.
 */
export type Visibility = 'public' | 'private' | 'secure' | 'internal';
export const VISIBILITIES: readonly Visibility[] = ['public', 'private', 'secure', 'internal'];

/** Unknown stored values are treated as public (docs/links.md#visibility). */
export function asVisibility(v: string | null | undefined): Visibility {
  return v === 'private' || v === 'secure' || v === 'internal' ? v : 'public';
}

export type ResolveAccess = 'allow' | 'login' | 'forbidden';

/**
 * Who may follow a link (docs/links.md#visibility). Public and private resolve for anyone;
 * internal for anyone signed in; secure only for owners, share recipients and
 * admins; anonymous visitors are sent to sign in first. `facts` is null for
 * anonymous viewers (for internal, any non-null facts stand for "signed in").
 */
export function resolveAccess(visibility: Visibility, facts: LinkFacts | null): ResolveAccess {
  if (visibility === 'internal') return facts ? 'allow' : 'login';
  if (visibility !== 'secure') return 'allow';
  if (!facts) return 'login';
  // Following a secure link is viewing it: the one rule of who may, LinkCaps.
  return linkCaps(facts).canView ? 'allow' : 'forbidden';
}
