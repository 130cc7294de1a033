import type { User } from '../store/types.js';

export type Theme = 'joe-light' | 'joe-dark';
/** What the theme switch offers: a theme, or `system` (no cookie: the system preference decides). */
export type ThemeChoice = Theme | 'system';

/** What every page needs to know about the request, independent of its content. */
export interface PageContext {
  user: User | null;
  /** From a valid `theme` cookie; null lets the system preference decide. */
  theme: Theme | null;
  path: string;
  /** Display prefix for short links, e.g. `go` (docs/server.md#configuration JOE_SHORT_KEYWORD). */
  shortKeyword: string;
  /** A message left by the form post that redirected here (docs/web-ui.md#feedback), shown once. */
  flash?: { level: 'success' | 'error' | 'info'; message: string } | null;
  /** The bell's number: the signed-in user's unread notifications, counted only for full pages. */
  unreadNotifications?: number;
}

export function parseTheme(v: string | undefined): Theme | null {
  return v === 'joe-light' || v === 'joe-dark' ? v : null;
}

export function parseThemeChoice(v: string | undefined): ThemeChoice | null {
  return v === 'system' ? v : parseTheme(v);
}
