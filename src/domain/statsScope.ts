import { AppError } from './errors.js';

/**
 * Which links a cross-link analytics surface aggregates over. `mine` is the
 * viewer's personal scope: links they own or co-own plus links shared with
 * them through link_shares — never other users' links, public ones included,
 * because public governs resolving and browsing, not stats (Governing:
 * docs/analytics.md#dashboard). `all` is every link and is only ever built for admins.
 */
export type StatsScope = { kind: 'mine'; viewerId: string } | { kind: 'all' };

/** The dashboard's `scope` as asked for. */
export type DashboardScope = 'mine' | 'all';

/** `scope` query value: absent → mine; anything but `mine`/`all` → null (a 400). */
export function parseDashboardScope(raw: string | undefined | null): DashboardScope | null {
  if (raw === undefined || raw === null) return 'mine';
  return raw === 'mine' || raw === 'all' ? raw : null;
}

/**
 * The scope a viewer's dashboard covers (Governing: docs/analytics.md#who-sees-what):
 * their personal scope for everyone, every link only for admins; a non-admin
 * asking for `all` is FORBIDDEN.
 */
export function dashboardScopeFor(viewer: { id: string; isAdmin: boolean }, scope: DashboardScope): StatsScope {
  if (scope === 'all' && !viewer.isAdmin) throw new AppError('FORBIDDEN', 'scope=all is limited to admins');
  return scope === 'all' ? { kind: 'all' } : { kind: 'mine', viewerId: viewer.id };
}
