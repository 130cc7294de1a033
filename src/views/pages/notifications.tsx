import type { NotificationKind } from '../../domain/notifications.js';
import { Icon, type IconName } from '../partials/icons.js';
import { LocalTime } from '../partials/localTime.js';
import { NotificationBellsOob } from '../partials/notificationBell.js';
import { Pager, type KeysetSpot } from '../partials/pager.js';
import { EmptyState, PageHeader, Spinner } from '../partials/ui.js';

/**
 * `/notifications` (docs/web-ui.md#notifications): newest first, paged Newer / Older, unread ones
 * marked, read one by one or all at once.
 */

export interface NotificationItem {
  id: string;
  kind: NotificationKind;
  text: string;
  at: number;
  read: boolean;
  /** The link's page; null when the notification says the link was deleted. */
  linkHref: string | null;
  linkLabel: string;
}

export interface NotificationsProps {
  items: readonly NotificationItem[];
  unread: number;
  /** Where the page sits among all the user's notifications, and the pages either side. */
  spot: KeysetSpot;
}

const KIND_ICON: Record<NotificationKind, IconName> = {
  link_changed: 'pencil',
  link_shared: 'users',
  link_broken: 'warning',
  link_expiring: 'bell',
};

export function NotificationRow({ item }: { item: NotificationItem }) {
  const action = `/notifications/${item.id}/read`;
  return (
    <li id={`notification-${item.id}`} class={`flex items-start gap-3 p-3 sm:p-4${item.read ? '' : ' bg-base-200'}`}>
      <span class={`rounded-full p-2 shrink-0 ${item.read ? 'bg-base-200' : 'bg-primary text-primary-content'}`} aria-hidden="true">
        <Icon name={KIND_ICON[item.kind]} class="size-4" />
      </span>
      <div class="min-w-0 flex-1 space-y-1">
        <p class={`break-words${item.read ? '' : ' font-semibold'}`}>
          {!item.read && <span class="sr-only">Unread: </span>}
          {item.text}
        </p>
        <p class="text-sm text-base-content/70 flex flex-wrap items-center gap-x-3 gap-y-1">
          <LocalTime ms={item.at} />
          {item.linkHref && (
            <a class="link" href={item.linkHref}>
              {`Open ${item.linkLabel}`}
            </a>
          )}
        </p>
      </div>
      {!item.read && (
        <form method="post" action={action} hx-post={action} hx-target={`#notification-${item.id}`} hx-swap="outerHTML" class="shrink-0">
          <button type="submit" class="btn btn-ghost btn-xs">
            <Spinner />
            Mark read
          </button>
        </form>
      )}
    </li>
  );
}

export function NotificationList({ items, spot }: NotificationsProps) {
  return (
    <div id="notification-list" class="space-y-4">
      {items.length === 0 ? (
        <EmptyState icon="bell" title="No notifications">
          You are told here when someone else changes a link you own, a link you own breaks or is about to expire, or a secure link is
          shared with you.
        </EmptyState>
      ) : (
        <ul class="rounded-box border border-base-300 bg-base-100 divide-y divide-base-300 overflow-hidden" aria-label="Notifications">
          {items.map((item) => (
            <NotificationRow item={item} />
          ))}
        </ul>
      )}
      <Pager noun="notification" keyset={spot} />
    </div>
  );
}

export function MarkAllRead() {
  return (
    <form
      method="post"
      action="/notifications/read-all"
      hx-post="/notifications/read-all"
      hx-target="#notification-list"
      hx-swap="outerHTML"
    >
      <button type="submit" class="btn btn-sm">
        <Spinner />
        <Icon name="check" class="size-4" />
        Mark all read
      </button>
    </form>
  );
}

function UnreadSummary({ unread, oob }: { unread: number; oob?: boolean }) {
  return (
    <span id="notifications-unread" hx-swap-oob={oob ? 'outerHTML' : undefined}>
      {unread === 0 ? 'You are all caught up.' : `${unread} unread`}
    </span>
  );
}

export function NotificationsPage(props: NotificationsProps) {
  return (
    <>
      <PageHeader
        title="Notifications"
        subtitle={<UnreadSummary unread={props.unread} />}
        actions={
          <>
            {props.unread > 0 && <MarkAllRead />}
            <a class="btn btn-sm btn-ghost" href="/dashboard/settings/notifications">
              Settings
            </a>
          </>
        }
      />
      <NotificationList {...props} />
    </>
  );
}

/** What an HTMX "mark read" answers: the changed rows and both bells. */
export function MarkedRead({ rows, list, unread }: { rows?: NotificationItem[]; list?: NotificationsProps; unread: number }) {
  return (
    <>
      {list ? <NotificationList {...list} /> : rows?.map((item) => <NotificationRow item={item} />)}
      <NotificationBellsOob unread={unread} />
      <UnreadSummary unread={unread} oob />
    </>
  );
}
