import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { requestUser } from '../../auth/currentUser.js';
import { isNotificationKind, NOTIFICATION_KINDS, notificationText, type NotificationKind } from '../../domain/notifications.js';
import type { NewestFirstFrom } from '../../store/newestFirst.js';
import type { Notification } from '../../store/notifications.js';
import type { User } from '../../store/types.js';
import type { PageContext } from '../../views/context.js';
import { formatDateTime } from '../../views/format.js';
import { NotificationSettingsForm, NotificationSettingsPage } from '../../views/pages/notificationSettings.js';
import { MarkedRead, NotificationsPage, type NotificationItem, type NotificationsProps } from '../../views/pages/notifications.js';
import { requireUser } from './guards.js';
import { newestFirstFrom, newestFirstSpot } from './newestFirstPager.js';
import { isHtmx, pageContext, sendHtml } from './render.js';
import { notFound, param, query, seeOther, type WebDeps } from './support.js';

/**
 * `/notifications` and `/dashboard/settings/notifications`
 * (docs/web-ui.md#notifications). Marking read is a POST the web context's
 * cross-site check guards; HTMX swaps the changed rows and both bells, a
 * plain form post is answered 303 back to the page.
 */

const PAGE_SIZE = 30;

function itemOf(n: Notification, ctx: PageContext): NotificationItem {
  const gone = n.kind === 'link_changed' && n.detail.event === 'deleted';
  return {
    id: n.id,
    kind: n.kind,
    // The pages' one date format (docs/web-ui.md#rendering-conventions), as beside each notification.
    text: notificationText(n, { prefix: ctx.shortKeyword, readerId: n.userId, time: formatDateTime }),
    at: n.createdAt,
    read: n.readAt !== null,
    linkHref: gone ? null : `/dashboard/links/${n.linkId}`,
    linkLabel: `${ctx.shortKeyword}/${n.linkSlug}`,
  };
}

export function registerNotificationRoutes(app: FastifyInstance, deps: WebDeps): void {
  const { store } = deps;
  const guard = { preHandler: requireUser(deps) };

  const listProps = async (user: User, ctx: PageContext, from: NewestFirstFrom): Promise<NotificationsProps> => {
    const page = await store.notifications.page(user.id, { ...from, limit: PAGE_SIZE });
    return {
      items: page.items.map((n) => itemOf(n, ctx)),
      unread: ctx.unreadNotifications ?? (await store.notifications.unreadCount(user.id)),
      spot: await newestFirstSpot(page.items, (newerThan) => store.notifications.count(user.id, { newerThan }), '/notifications'),
    };
  };

  app.get('/notifications', guard, async (req, reply) => {
    const user = requestUser(req);
    const ctx = await pageContext(deps, req, user);
    return sendHtml(req, reply, ctx, 'Notifications', <NotificationsPage {...await listProps(user, ctx, newestFirstFrom(req))} />);
  });

  const marked = async (req: FastifyRequest, reply: FastifyReply, user: User, rows: Notification[] | 'all') => {
    if (!isHtmx(req)) return seeOther(reply, '/notifications');
    const ctx = await pageContext(deps, req, user);
    const unread = await store.notifications.unreadCount(user.id);
    const body =
      rows === 'all' ? (
        <MarkedRead list={await listProps(user, ctx, {})} unread={unread} />
      ) : (
        <MarkedRead rows={rows.map((n) => itemOf(n, ctx))} unread={unread} />
      );
    return sendHtml(req, reply, ctx, 'Notifications', body);
  };

  app.post('/notifications/:id/read', guard, async (req, reply) => {
    const user = requestUser(req);
    const id = param(req, 'id');
    // Someone else's notification is answered exactly like an unknown one, and nothing changes.
    if (!(await store.notifications.markRead(user.id, [id]))) return notFound(deps, req, reply, 'That notification does not exist.');
    const row = await findOwn(user.id, id);
    return marked(req, reply, user, row ? [row] : []);
  });

  app.post('/notifications/read-all', guard, async (req, reply) => {
    const user = requestUser(req);
    await store.notifications.markAllRead(user.id);
    return marked(req, reply, user, 'all');
  });

  async function findOwn(userId: string, id: string): Promise<Notification | null> {
    const n = await store.notifications.get(id);
    return n && n.userId === userId ? n : null;
  }

  const settings = async (req: FastifyRequest, reply: FastifyReply, saved: boolean) => {
    const user = requestUser(req);
    const props = {
      email: (await store.notifications.emailPreferences([user.id])).get(user.id)!,
      mailConfigured: deps.config.mail.smtp !== null,
      saved,
    };
    const ctx = await pageContext(deps, req, user);
    if (isHtmx(req)) return sendHtml(req, reply, ctx, 'Notification settings', <NotificationSettingsForm {...props} />);
    return sendHtml(req, reply, ctx, 'Notification settings', <NotificationSettingsPage {...props} />);
  };

  app.get('/dashboard/settings/notifications', guard, async (req, reply) => settings(req, reply, query(req, 'saved') === '1'));

  app.post('/dashboard/settings/notifications', guard, async (req, reply) => {
    const user = requestUser(req);
    const raw = (req.body as Record<string, unknown> | undefined)?.email;
    const checked = new Set((Array.isArray(raw) ? raw : [raw]).filter(isNotificationKind));
    const prefs = Object.fromEntries(NOTIFICATION_KINDS.map((k) => [k, checked.has(k)])) as Record<NotificationKind, boolean>;
    await store.notifications.setEmailPreferences(user.id, prefs);
    if (!isHtmx(req)) return seeOther(reply, '/dashboard/settings/notifications?saved=1');
    return settings(req, reply, true);
  });
}
