import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isAppError } from '../../domain/errors.js';
import { validateWebhookInput } from '../../domain/webhooks.js';
import { DeliveryLogPage, EMPTY_WEBHOOK_FORM, WebhooksPage, WebhooksSection, type WebhooksState } from '../../views/pages/webhooks.js';
import { requireAdmin } from './guards.js';
import { webRoute } from './methodOverride.js';
import { newestFirstFrom, newestFirstSpot } from './newestFirstPager.js';
import { isHtmx, pageContext, sendHtml } from './render.js';
import { field, notFound, param, query, seeOther, type WebDeps } from './support.js';

/** Deliveries per page of an endpoint's log. */
const DELIVERIES_PAGE_SIZE = 30;

/**
 * `/admin/webhooks` (docs/web-ui.md#webhooks): the same registrations and
 * delivery log as the admin API, behind requireAdmin and the web context's
 * cross-site check. A new endpoint's secret is in the response that made it
 * and nowhere else.
 */
export function registerWebhookRoutes(app: FastifyInstance, deps: WebDeps): void {
  const { store } = deps;
  const guard = { preHandler: requireAdmin(deps) };

  const respond = async (req: FastifyRequest, reply: FastifyReply, partial: Partial<WebhooksState>, status = 200) => {
    const state: WebhooksState = { hooks: await store.webhooks.list(), form: EMPTY_WEBHOOK_FORM, created: null, flash: null, ...partial };
    reply.header('cache-control', 'no-store');
    const ctx = await pageContext(deps, req);
    // HTMX swaps only 2xx answers, so a refused form comes back as 200 with its error shown.
    if (isHtmx(req)) return sendHtml(req, reply, ctx, 'Webhooks', <WebhooksSection {...state} />);
    return sendHtml(req, reply, ctx, 'Webhooks', <WebhooksPage {...state} />, status);
  };

  app.get('/admin/webhooks', guard, async (req, reply) =>
    respond(req, reply, { flash: query(req, 'deleted') === '1' ? 'Endpoint deleted.' : null }),
  );

  app.post('/admin/webhooks', guard, async (req, reply) => {
    const url = field(req, 'url');
    const raw = (req.body as Record<string, unknown> | undefined)?.events;
    const events = (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]).filter((e): e is string => typeof e === 'string');
    try {
      const hook = await store.webhooks.create(validateWebhookInput({ url, events }));
      return respond(req, reply, { created: { url: hook.url, secret: hook.secret } });
    } catch (e) {
      if (!isAppError(e) || e.status !== 400) throw e;
      return respond(req, reply, { form: { url, events, error: e.message } }, 400);
    }
  });

  webRoute(app, 'DELETE', '/admin/webhooks/:id', guard, async (req, reply) => {
    if (!(await store.webhooks.delete(param(req, 'id')))) return notFound(deps, req, reply, 'That webhook does not exist.');
    return seeOther(reply, '/admin/webhooks?deleted=1');
  });

  app.get('/admin/webhooks/:id', guard, async (req, reply) => {
    const hook = await store.webhooks.get(param(req, 'id'));
    if (!hook) return notFound(deps, req, reply, 'That webhook does not exist.');
    const page = await store.outbox.forWebhook(hook.id, { ...newestFirstFrom(req), limit: DELIVERIES_PAGE_SIZE });
    const attempts = await store.outbox.attempts(page.rows.map((r) => r.id));
    const state = {
      hook,
      rows: page.rows.map((r) => ({ ...r, log: attempts.get(r.id) ?? [] })),
      spot: await newestFirstSpot(
        page.rows,
        (newerThan) => store.outbox.countForWebhook(hook.id, { newerThan }),
        `/admin/webhooks/${hook.id}`,
      ),
      flash: query(req, 'redelivered') === '1' ? 'Sent again: a new delivery of the same message is on its way.' : null,
    };
    return sendHtml(req, reply, await pageContext(deps, req), 'Deliveries', <DeliveryLogPage {...state} />);
  });

  app.post('/admin/webhooks/:id/deliveries/:did/redeliver', guard, async (req, reply) => {
    const id = param(req, 'id');
    if (!(await store.outbox.redeliver(param(req, 'did'), id))) return notFound(deps, req, reply, 'That delivery does not exist.');
    return seeOther(reply, `/admin/webhooks/${id}?redelivered=1`);
  });
}
