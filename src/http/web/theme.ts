import type { FastifyInstance } from 'fastify';
import { parseTheme } from '../../views/context.js';

/**
 * `POST /dashboard/theme` (docs/web-ui.md#theme): public, so the anonymous navbar's
 * toggle works too. The cookie is readable by the page script (not HttpOnly)
 * because the script applies the theme before the stylesheet loads.
 */
export const THEME_COOKIE_MAX_AGE_S = 31_536_000;

export function registerThemeRoute(app: FastifyInstance): void {
  app.post('/dashboard/theme', async (req, reply) => {
    const raw = (req.body as Record<string, unknown> | undefined)?.theme;
    const theme = parseTheme(typeof raw === 'string' ? raw : undefined);
    if (!theme) return reply.code(400).type('text/plain; charset=utf-8').header('cache-control', 'no-store').send('invalid theme');
    reply.setCookie('theme', theme, { path: '/', maxAge: THEME_COOKIE_MAX_AGE_S, sameSite: 'lax', httpOnly: false });
    return reply
      .code(200)
      .header('cache-control', 'no-store')
      .header('hx-trigger', JSON.stringify({ themeChanged: { theme } }))
      .type('text/plain; charset=utf-8')
      .send('');
  });
}
