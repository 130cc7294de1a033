import type { FastifyInstance } from 'fastify';
import { safeReturnUrl } from '../../auth/returnUrl.js';
import { parseThemeChoice } from '../../views/context.js';

/**
 * `POST /dashboard/theme` (docs/web-ui.md#theme): public, so the anonymous navbar's
 * switch works too. `joe-light` and `joe-dark` are kept in a cookie readable by the
 * page script (not HttpOnly), because the script applies the theme before the
 * stylesheet loads; `system` deletes it, and the system preference decides again.
 * A plain form post (no JavaScript) that names a `return` path is sent back there.
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
    const back = body?.return;
    if (typeof back === 'string' && back !== '' && req.headers['hx-request'] !== 'true') {
      return reply.code(303).header('location', safeReturnUrl(back)).send();
    }
    return reply
      .code(200)
      .header('hx-trigger', JSON.stringify({ themeChanged: { theme } }))
      .type('text/plain; charset=utf-8')
      .send('');
  });
}
