import { NOTIFICATION_KIND_LABELS, NOTIFICATION_KINDS, type NotificationKind } from '../../domain/notifications.js';
import { Alert, PageHeader, Spinner } from '../partials/ui.js';

/** `/dashboard/settings/notifications` (docs/web-ui.md#notifications): mail on or off per kind; the app always shows them. */

export interface NotificationSettingsProps {
  email: Record<NotificationKind, boolean>;
  mailConfigured: boolean;
  saved: boolean;
}

export function NotificationSettingsForm({ email, mailConfigured, saved }: NotificationSettingsProps) {
  return (
    <div id="notification-settings" class="space-y-4 max-w-2xl">
      {saved && <Alert level="success">Saved.</Alert>}
      {!mailConfigured && (
        <Alert level="info">
          This server does not send mail, so notifications show in the app only. Your choices below apply once an administrator sets up
          mail.
        </Alert>
      )}
      <form
        method="post"
        action="/dashboard/settings/notifications"
        hx-post="/dashboard/settings/notifications"
        hx-target="#notification-settings"
        hx-swap="outerHTML"
        class="card bg-base-100 border border-base-300"
      >
        <fieldset class="card-body gap-3">
          <legend class="sr-only">Also send me an email when</legend>
          <p class="font-semibold" aria-hidden="true">
            Also send me an email when
          </p>
          {NOTIFICATION_KINDS.map((kind) => (
            <label class="flex items-start gap-3 cursor-pointer">
              <input type="checkbox" name="email" value={kind} checked={email[kind]} class="checkbox checkbox-sm mt-0.5" />
              <span>{NOTIFICATION_KIND_LABELS[kind]}</span>
            </label>
          ))}
          <input type="hidden" name="submitted" value="1" />
          <div class="card-actions justify-end">
            <button type="submit" class="btn btn-primary">
              <Spinner />
              Save
            </button>
          </div>
        </fieldset>
      </form>
    </div>
  );
}

export function NotificationSettingsPage(props: NotificationSettingsProps) {
  return (
    <>
      <PageHeader
        title="Notification settings"
        subtitle="Notifications always appear under the bell. Choose which of them also reach you by email."
        back={{ href: '/notifications', label: 'Notifications' }}
      />
      <NotificationSettingsForm {...props} />
    </>
  );
}
