export type LifecycleState = 'active' | 'expired' | 'archived';

/** Derived at read time, never stored: archived wins over expired (docs/lifecycle.md#lifecycle-state). */
export function lifecycleState(link: { archivedAt: number | null; expiresAt: number | null }, now: number): LifecycleState {
  if (link.archivedAt !== null) return 'archived';
  if (link.expiresAt !== null && link.expiresAt <= now) return 'expired';
  return 'active';
}
