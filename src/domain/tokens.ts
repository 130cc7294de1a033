import { AppError } from './errors.js';

/**
 * The rules of a personal access token that hold whatever stores it: its
 * name, the expiry choices the web form offers, and when it counts as active.
 */

/** The web form's expiry choices (docs/auth.md#token-settings-page): "" = never, else 30 days, 90 days, 1 year. */
export const TOKEN_EXPIRY_CHOICES: Readonly<Record<string, number | null>> = Object.freeze({
  '': null,
  '720h': 720 * 3_600_000,
  '2160h': 2160 * 3_600_000,
  '8760h': 8760 * 3_600_000,
});

const NAME_MAX = 255;

/** Active = not revoked and not past its expiry at `now`. */
export function isTokenActive(t: { revokedAt: number | null; expiresAt: number | null }, now: number): boolean {
  return t.revokedAt === null && (t.expiresAt === null || t.expiresAt > now);
}

export function validateTokenName(name: unknown): string {
  const n = typeof name === 'string' ? name.trim() : '';
  if (n === '') throw new AppError('BAD_REQUEST', 'name is required', 'name');
  if ([...n].length > NAME_MAX) throw new AppError('BAD_REQUEST', `name must be at most ${NAME_MAX} characters`, 'name');
  return n;
}
