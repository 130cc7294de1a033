import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { requestUser } from '../../auth/currentUser.js';
import { requireUser } from './guards.js';
import { isAppError } from '../../domain/errors.js';
import { ConfirmRevoke, TokensPage, TokensSection, type TokensState } from '../../views/pages/tokens.js';
import { webRoute } from './methodOverride.js';
import { hasNul, nulMessage, visibleNul } from '../../domain/nul.js';
import { isHtmx, pageContext, sendHtml, toastHeader } from './render.js';
import { field, notFound, param, type WebDeps } from './support.js';

/**
 * `/dashboard/settings/tokens` (docs/auth.md#token-settings-page). The plaintext of a new token
 * exists only in the response to the POST that made it; a reload shows the
 * list without it.
 */
export function registerTokenRoutes(app: FastifyInstance, deps: WebDeps): void {
  const { store } = deps;
  const guard = { preHandler: requireUser(deps) };

  /** The page or its section; `toast` says what just changed (docs/web-ui.md#feedback). */
  const respond = async (req: FastifyRequest, reply: FastifyReply, partial: Partial<TokensState>, status = 200, toast?: string) => {
    const user = requestUser(req);
    const state: TokensState = {
      tokens: await store.tokens.listForUser(user.id),
      now: store.now(),
      created: null,
      form: { name: '', expiresIn: '', error: null },
      ...partial,
    };
    // A token page must never be cached anywhere: it may hold a plaintext token.
    reply.header('cache-control', 'no-store');
    const ctx = await pageContext(deps, req, user);
    if (isHtmx(req)) {
      if (toast) toastHeader(reply, { level: 'success', message: toast });
      return sendHtml(req, reply, ctx, 'API Tokens', <TokensSection {...state} />, 200);
    }
    // Answered in place (a new token's plaintext exists only in this answer): the message rides along.
    if (toast) ctx.flash = { level: 'success', message: toast };
    return sendHtml(req, reply, ctx, 'API Tokens', <TokensPage {...state} />, status);
  };

  app.get('/dashboard/settings/tokens', guard, async (req, reply) => respond(req, reply, {}));

  app.post('/dashboard/settings/tokens', { ...guard, config: { handlesNul: true } }, async (req, reply) => {
    const user = requestUser(req);
    const name = field(req, 'name');
    const expiresIn = field(req, 'expires_in');
    if (hasNul(name) || hasNul(expiresIn)) {
      const error = `${nulMessage(hasNul(name) ? 'Name' : 'Expiry')}.`;
      return respond(req, reply, { form: { name: visibleNul(name), expiresIn: visibleNul(expiresIn), error } }, 400);
    }
    try {
      const created = await store.tokens.createWithExpiresIn(user.id, name, expiresIn);
      return respond(
        req,
        reply,
        { created: { name: created.token.name, plaintext: created.plaintext } },
        200,
        `Token "${created.token.name}" created.`,
      );
    } catch (e) {
      if (!isAppError(e) || e.status !== 400) throw e;
      const message = e.field === 'name' && name.trim() === '' ? 'Name is required.' : e.message;
      return respond(req, reply, { form: { name, expiresIn, error: message } }, 400);
    }
  });

  app.get('/dashboard/settings/tokens/:id/confirm-revoke', guard, async (req, reply) => {
    const token = await store.tokens.findForUser(requestUser(req).id, param(req, 'id'));
    if (!token) return notFound(deps, req, reply, 'That token does not exist.');
    return sendHtml(req, reply, await pageContext(deps, req), 'Revoke token', <ConfirmRevoke token={token} asModal={isHtmx(req)} />);
  });

  webRoute(app, 'DELETE', '/dashboard/settings/tokens/:id', guard, async (req, reply) => {
    const user = requestUser(req);
    const token = await store.tokens.findForUser(user.id, param(req, 'id'));
    if (!token || !(await store.tokens.revoke(user.id, token.id))) return notFound(deps, req, reply, 'That token does not exist.');
    return respond(req, reply, {}, 200, `Token "${token.name}" revoked.`);
  });
}
