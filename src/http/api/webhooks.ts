import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../../domain/errors.js';
import { pageLimit } from '../../domain/keysetCursor.js';
import { validateWebhookInput } from '../../domain/webhooks.js';
import { iso, isoOrNull } from '../../links/index.js';
import type { Store } from '../../store/index.js';
import type { OutboxAttempt, OutboxRow } from '../../store/outbox.js';
import type { Webhook } from '../../store/webhooks.js';
import { decodeNewestFirstCursor, newestFirstCursor } from '../shared/newestFirstCursor.js';
import { errorResponses } from './errors.js';
import { adminOnly, BEARER } from './guards.js';
import { PageQueryFields } from './links.js';
import { ref } from './schemas/ref.js';
import { idempotent, IdempotencyHeaders } from './idempotency.js';
import {
  CreateWebhookSchema,
  DeliveryListSchema,
  DeliverySchema,
  WebhookCreatedSchema,
  WebhookListSchema,
  WebhookSchema,
} from './schemas/webhooks.js';

/**
 * Webhook endpoints and their delivery log, for admins (docs/api.md#notifications-and-webhooks).
 * A registration is checked whole before anything is stored; the secret
 * leaves the server once, in the response that created it.
 */

export function webhookBody(h: Webhook): Static<typeof WebhookSchema> {
  return { id: h.id, url: h.url, events: h.events, created_at: iso(h.createdAt) };
}

export function deliveryBody(r: OutboxRow, attempts: readonly OutboxAttempt[]): Static<typeof DeliverySchema> {
  return {
    id: r.id,
    message_id: r.messageId,
    type: r.eventType,
    status: r.status,
    created_at: iso(r.createdAt),
    next_attempt_at: r.status === 'pending' ? iso(r.nextAttemptAt) : null,
    finished_at: isoOrNull(r.finishedAt),
    attempts: attempts.map((a) => ({
      attempt: a.attempt,
      at: iso(a.at),
      status_code: a.statusCode,
      error: a.error,
      duration_ms: a.durationMs,
    })),
  };
}

const WebhookParams = Type.Object({ id: Type.String({ description: 'webhook id' }) });

export function registerWebhookRoutes(app: FastifyInstance, deps: { store: Pick<Store, 'webhooks' | 'outbox' | 'idempotency'> }): void {
  const { store } = deps;
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  const admin = adminOnly();
  const hookOr404 = async (id: string) => {
    const hook = await store.webhooks.get(id);
    if (!hook) throw new AppError('NOT_FOUND', 'webhook not found');
    return hook;
  };

  api.post(
    '/admin/webhooks',
    {
      onRequest: admin,
      ...idempotent(deps),
      schema: {
        operationId: 'createWebhook',
        summary: 'Register a webhook endpoint; the response is the only time its secret is shown (or a retry with its Idempotency-Key)',
        tags: ['Webhooks'],
        security: BEARER,
        headers: IdempotencyHeaders,
        body: ref(CreateWebhookSchema),
        response: {
          201: ref(WebhookCreatedSchema, { description: 'Registered' }),
          ...errorResponses(400, 401, 403, [409, 'IDEMPOTENCY_KEY_IN_USE'], 413, 422, 500),
        },
      },
    },
    async (req, reply) => {
      const hook = await store.webhooks.create(validateWebhookInput(req.body));
      return reply.code(201).send({ ...webhookBody(hook), secret: hook.secret });
    },
  );

  api.get(
    '/admin/webhooks',
    {
      onRequest: admin,
      schema: {
        operationId: 'listWebhooks',
        summary: 'List webhook endpoints',
        tags: ['Webhooks'],
        security: BEARER,
        response: { 200: ref(WebhookListSchema, { description: 'Every endpoint, oldest first' }), ...errorResponses(401, 403, 500) },
      },
    },
    async () => ({ webhooks: (await store.webhooks.list()).map(webhookBody) }),
  );

  api.get(
    '/admin/webhooks/:id',
    {
      onRequest: admin,
      schema: {
        operationId: 'getWebhook',
        summary: 'Read one webhook endpoint',
        tags: ['Webhooks'],
        security: BEARER,
        params: WebhookParams,
        response: { 200: ref(WebhookSchema, { description: 'The endpoint' }), ...errorResponses(401, 403, 404, 500) },
      },
    },
    async (req) => webhookBody(await hookOr404(req.params.id)),
  );

  api.delete(
    '/admin/webhooks/:id',
    {
      onRequest: admin,
      schema: {
        operationId: 'deleteWebhook',
        summary: 'Delete a webhook endpoint and its delivery log; nothing more is sent to it',
        tags: ['Webhooks'],
        security: BEARER,
        params: WebhookParams,
        response: { 204: Type.Null({ description: 'Deleted' }), ...errorResponses(401, 403, 404, 500) },
      },
    },
    async (req, reply) => {
      if (!(await store.webhooks.delete(req.params.id))) throw new AppError('NOT_FOUND', 'webhook not found');
      return reply.code(204).send(null);
    },
  );

  api.get(
    '/admin/webhooks/:id/deliveries',
    {
      onRequest: admin,
      schema: {
        operationId: 'listWebhookDeliveries',
        summary: 'The endpoint’s deliveries, newest first, each with every attempt',
        tags: ['Webhooks'],
        security: BEARER,
        params: WebhookParams,
        querystring: Type.Object(PageQueryFields),
        response: { 200: ref(DeliveryListSchema, { description: 'A page of deliveries' }), ...errorResponses(400, 401, 403, 404, 500) },
      },
    },
    async (req) => {
      const hook = await hookOr404(req.params.id);
      const page = await store.outbox.forWebhook(hook.id, {
        before: decodeNewestFirstCursor(req.query.cursor),
        limit: pageLimit(req.query.limit),
      });
      const attempts = await store.outbox.attempts(page.rows.map((r) => r.id));
      const last = page.rows[page.rows.length - 1];
      return {
        deliveries: page.rows.map((r) => deliveryBody(r, attempts.get(r.id) ?? [])),
        next_cursor: page.hasMore && last ? newestFirstCursor(last) : null,
      };
    },
  );

  api.post(
    '/admin/webhooks/:id/deliveries/:delivery_id/redeliver',
    {
      onRequest: admin,
      schema: {
        operationId: 'redeliverWebhookDelivery',
        summary: 'Send a delivery again, as a new delivery of the same message (same webhook-id and body)',
        tags: ['Webhooks'],
        security: BEARER,
        params: Type.Object({ id: Type.String({ description: 'webhook id' }), delivery_id: Type.String({ description: 'delivery id' }) }),
        response: { 202: ref(DeliverySchema, { description: 'The new delivery, due now' }), ...errorResponses(401, 403, 404, 500) },
      },
    },
    async (req, reply) => {
      const hook = await hookOr404(req.params.id);
      const row = await store.outbox.redeliver(req.params.delivery_id, hook.id);
      if (!row) throw new AppError('NOT_FOUND', 'delivery not found');
      return reply.code(202).send(deliveryBody(row, []));
    },
  );
}
