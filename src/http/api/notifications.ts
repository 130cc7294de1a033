import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { requestUser } from '../../auth/currentUser.js';
import type { Config } from '../../config.js';
import { AppError } from '../../domain/errors.js';
import { pageLimit } from '../../domain/keysetCursor.js';
import { notificationText, type NotificationActor } from '../../domain/notifications.js';
import { iso } from '../../links/index.js';
import type { Store } from '../../store/index.js';
import type { Notification } from '../../store/notifications.js';
import { decodeNewestFirstCursor, newestFirstCursor } from '../shared/newestFirstCursor.js';
import { errorResponses } from './errors.js';
import { BEARER } from './guards.js';
import { PageQueryFields } from './links.js';
import {
  type EventActorSchema,
  MarkReadResultSchema,
  MarkReadSchema,
  NotificationListSchema,
  NotificationPreferencesSchema,
  UpdateNotificationPreferencesSchema,
  type NotificationSchema,
} from './schemas/notifications.js';
import { ref } from './schemas/ref.js';

/**
 * The caller's own notifications and mail choices (docs/api.md#notifications-and-webhooks).
 * Every query names the caller: someone else's notification is answered like
 * an unknown one, and a request naming one changes nothing.
 */

export function actorBody(a: NotificationActor): Static<typeof EventActorSchema> {
  return a.type === 'user' ? { type: 'user', id: a.id, email: a.email, display_name: a.displayName } : { type: 'system', via: a.via };
}

export function notificationBody(n: Notification, prefix: string): Static<typeof NotificationSchema> {
  return {
    id: n.id,
    at: iso(n.createdAt),
    kind: n.kind,
    ...(n.kind === 'link_changed' && n.detail.event !== undefined ? { event: n.detail.event } : {}),
    link: { id: n.linkId, slug: n.linkSlug },
    actor: actorBody(n.detail.actor),
    read: n.readAt !== null,
    text: notificationText(n, { prefix, readerId: n.userId }),
  };
}

export function registerNotificationRoutes(
  app: FastifyInstance,
  deps: { config: Pick<Config, 'shortKeyword' | 'mail'>; store: Pick<Store, 'notifications'> },
): void {
  const { store } = deps;
  const prefix = deps.config.shortKeyword || 'go';
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  api.get(
    '/notifications',
    {
      schema: {
        operationId: 'listNotifications',
        summary: 'The caller’s notifications, newest first, with the unread count',
        tags: ['Notifications'],
        security: BEARER,
        querystring: Type.Object(PageQueryFields),
        response: { 200: ref(NotificationListSchema, { description: 'A page of notifications' }), ...errorResponses(400, 401, 500) },
      },
    },
    async (req) => {
      const user = requestUser(req);
      const q = req.query;
      const page = await store.notifications.page(user.id, { before: decodeNewestFirstCursor(q.cursor), limit: pageLimit(q.limit) });
      const last = page.items[page.items.length - 1];
      return {
        notifications: page.items.map((n) => notificationBody(n, prefix)),
        unread: await store.notifications.unreadCount(user.id),
        next_cursor: page.hasMore && last ? newestFirstCursor(last) : null,
      };
    },
  );

  api.post(
    '/notifications/read',
    {
      schema: {
        operationId: 'markNotificationsRead',
        summary: 'Mark notifications read: some by id, or all of them',
        tags: ['Notifications'],
        security: BEARER,
        body: ref(MarkReadSchema),
        response: {
          200: ref(MarkReadResultSchema, { description: 'Marked; the unread count left' }),
          ...errorResponses(400, 401, 404, 413, 500),
        },
      },
    },
    async (req) => {
      const user = requestUser(req);
      const { ids, all } = req.body;
      if ((ids === undefined) === (all !== true)) throw new AppError('BAD_REQUEST', 'give either "ids" or "all": true', 'ids');
      if (all === true) await store.notifications.markAllRead(user.id);
      else if (!(await store.notifications.markRead(user.id, ids!))) throw new AppError('NOT_FOUND', 'notification not found', 'ids');
      return { unread: await store.notifications.unreadCount(user.id) };
    },
  );

  const preferences = async (userId: string) => ({
    mail_configured: deps.config.mail.smtp !== null,
    email: (await store.notifications.emailPreferences([userId])).get(userId)!,
  });

  api.get(
    '/me/notification-preferences',
    {
      schema: {
        operationId: 'getNotificationPreferences',
        summary: 'Which notifications the caller also gets by mail',
        tags: ['Notifications'],
        security: BEARER,
        response: { 200: ref(NotificationPreferencesSchema, { description: 'Mail on or off per kind' }), ...errorResponses(401, 500) },
      },
    },
    async (req) => preferences(requestUser(req).id),
  );

  api.put(
    '/me/notification-preferences',
    {
      schema: {
        operationId: 'setNotificationPreferences',
        summary: 'Turn mail on or off per notification kind',
        tags: ['Notifications'],
        security: BEARER,
        body: ref(UpdateNotificationPreferencesSchema),
        response: {
          200: ref(NotificationPreferencesSchema, { description: 'The choices now in force' }),
          ...errorResponses(400, 401, 413, 500),
        },
      },
    },
    async (req) => {
      const user = requestUser(req);
      await store.notifications.setEmailPreferences(user.id, req.body.email);
      return preferences(user.id);
    },
  );
}
