/**
 * Profile URL slug from a display name (core.md §1.4 backfill rule, web-ui §12):
 * lower(trim), spaces → `-`, punctuation removed, `--` collapsed, edge `-` trimmed;
 * empty → `user-<first 8 of id>`. Uniqueness suffixes are the store's job.
 */
export function displayNameSlug(displayName: string, userId: string): string {
  const base = displayName
    .trim()
    .toLowerCase()
    .replace(/\s+/g, '-')
    .replace(/['".,!?()@#&+/\\]/g, '')
    .replace(/-{2,}/g, '-')
    .replace(/^-+|-+$/g, '');
  return base === '' ? `user-${userId.slice(0, 8)}` : base;
}

/** The part of an email before `@`, the default display name for forward-auth and CLI users. */
export function emailLocalPart(email: string): string {
  const at = email.indexOf('@');
  return at > 0 ? email.slice(0, at) : email;
}
