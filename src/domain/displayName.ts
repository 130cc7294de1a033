/**
 * Profile URL slug from a display name (docs/web-ui.md#public-browser-and-profiles), recomputed at every
 * sign-in: lowercase, whitespace runs → `-`, anything outside `[a-z0-9-]`
 * dropped, `-` runs collapsed, edge `-` trimmed; empty → `user`.
 * `Joe O'Brien III` → `joe-obrien-iii`. Uniqueness suffixes (`-2`, `-3`…) are
 * the store's job.
 */
export function displayNameSlug(displayName: string): string {
  const base = displayName
    .toLowerCase()
    .trim()
    .replace(/\s+/g, '-')
    .replace(/[^a-z0-9-]/g, '')
    .replace(/-{2,}/g, '-')
    .replace(/^-+|-+$/g, '');
  return base === '' ? 'user' : base;
}

/** The part of an email before `@`, the default display name for forward-auth and CLI users. */
export function emailLocalPart(email: string): string {
  const at = email.indexOf('@');
  return at > 0 ? email.slice(0, at) : email;
}
