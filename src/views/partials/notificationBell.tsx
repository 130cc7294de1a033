import { Icon } from './icons.js';

/**
 * The header's notification bell (docs/web-ui.md#notifications): a plain link
 * to /notifications with the unread count, no script needed. The layout
 * shows one in the sidebar and one in the small-screen header; a fragment
 * that marks notifications read sends both again out of band. Its count
 * overhangs the button's corner by half its width: the margin keeps a
 * `99+` inside the phone header's edge.
 */

export const BELL_IDS = ['notification-bell', 'notification-bell-mobile'] as const;

function countLabel(unread: number): string {
  return unread > 99 ? '99+' : String(unread);
}

export function NotificationBell({ id, unread, oob }: { id: (typeof BELL_IDS)[number]; unread: number; oob?: boolean }) {
  const label = unread === 0 ? 'Notifications' : `Notifications, ${unread} unread`;
  return (
    <a
      id={id}
      href="/notifications"
      class="btn btn-ghost btn-sm btn-square indicator me-2"
      aria-label={label}
      title={label}
      hx-swap-oob={oob ? 'outerHTML' : undefined}
    >
      <Icon name="bell" class="size-5" />
      {unread > 0 && (
        <span class="indicator-item badge badge-primary badge-xs px-1" aria-hidden="true">
          {countLabel(unread)}
        </span>
      )}
    </a>
  );
}

/** Both bells, swapped out of band, after a fragment changed the count. */
export function NotificationBellsOob({ unread }: { unread: number }) {
  return (
    <>
      {BELL_IDS.map((id) => (
        <NotificationBell id={id} unread={unread} oob />
      ))}
    </>
  );
}
