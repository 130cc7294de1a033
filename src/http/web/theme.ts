import type { FastifyInstance, FastifyRequest } from 'fastify';
import { DEFAULT_RETURN_URL, safeReturnUrl } from '../../auth/returnUrl.js';
import { parseThemeChoice } from '../../views/context.js';

/**
 * `POST /dashboard/theme` (docs/web-ui.md#theme): public, so the anonymous navbar's
 * switch works too. `joe-light` and `joe-dark` are kept in a cookie readable by the
 * page script (not HttpOnly), because the script applies the theme before the
 * stylesheet loads; `system` deletes it, and the system preference decides again.
 * A plain form post (no JavaScript) that says `back` is sent back to the page it came from.
 */
export const THEME_COOKIE_MAX_AGE_S = 31_536_000;

export function registerThemeRoute(app: FastifyInstance): void {
  app.post('/dashboard/theme', async (req, reply) => {
    const body = req.body as Record<string, unknown> | undefined;
    const raw = body?.theme;
    const theme = parseThemeChoice(typeof raw === 'string' ? raw : undefined);
    if (!theme) return reply.code(400).type('text/plain; charset=utf-8').header('cache-control', 'no-store').send('invalid theme');
    if (theme === 'system') reply.clearCookie('theme', { path: '/' });
    else reply.setCookie('theme', theme, { path: '/', maxAge: THEME_COOKIE_MAX_AGE_S, sameSite: 'lax', httpOnly: false });
    reply.header('cache-control', 'no-store');
    if (body?.back !== undefined && req.headers['hx-request'] !== 'true') {
      return reply.code(303).header('location', sameSiteReferrer(req)).send();
    }
    return reply
      .code(200)
      .header('hx-trigger', JSON.stringify({ themeChanged: { theme } }))
      .type('text/plain; charset=utf-8')
      .send('');
  });
}

/**
 * The page a form was posted from, when the browser names it and it is on this site (our
 * referrer policy sends the full address to our own origin); else the dashboard. The
 * switch does not carry its page's address itself, so every page's markup stays the same
 * whatever its address (an access-denied page must not tell one path from another).
 */
function sameSiteReferrer(req: FastifyRequest): string {
  const referrer = req.headers.referer;
  if (typeof referrer !== 'string' || referrer === '') return DEFAULT_RETURN_URL;
  try {
    const url = new URL(referrer);
    if (url.host !== req.headers.host) return DEFAULT_RETURN_URL;
    return safeReturnUrl(url.pathname + url.search);
  } catch {
    return DEFAULT_RETURN_URL;
  }
}
