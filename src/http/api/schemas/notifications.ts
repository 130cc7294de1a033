import { Type } from '@sinclair/typebox';
import { NOTIFICATION_KINDS } from '../../../domain/notifications.js';
import { Nullable, ref, StringEnum, Timestamp } from './ref.js';

/** Notifications and their preferences (docs/notifications.md, docs/api.md#notifications-and-webhooks). */

export const EventActorSchema = Type.Object(
  {
    type: StringEnum(['user', 'system'] as const),
    id: Type.Optional(Type.String({ description: 'user id (type user)' })),
    email: Type.Optional(Type.String({ description: 'type user' })),
    display_name: Type.Optional(Type.String({ description: 'type user' })),
    via: Type.Optional(Type.String({ description: 'type system: what acted, e.g. `cli`, `health-checker`, `expiry-watch`' })),
  },
  { $id: 'EventActor', additionalProperties: false, description: 'Who made a change: a user, or the server itself' },
);

export const NotificationSchema = Type.Object(
  {
    id: Type.String(),
    at: Timestamp(),
    kind: StringEnum(NOTIFICATION_KINDS),
    event: Type.Optional(
      Type.String({ description: 'link_changed only: the kind of change (created, updated, archived, owner_added, deleted, …)' }),
    ),
    link: Type.Object({ id: Type.String(), slug: Type.String() }, { additionalProperties: false }),
    actor: ref(EventActorSchema),
    read: Type.Boolean(),
    text: Type.String({ description: 'the notification as one readable sentence' }),
  },
  { $id: 'Notification', additionalProperties: false },
);

export const NotificationListSchema = Type.Object(
  {
    notifications: Type.Array(ref(NotificationSchema)),
    unread: Type.Integer({ description: 'the caller’s unread notifications in all' }),
    next_cursor: Nullable(Type.String()),
  },
  { $id: 'NotificationListResponse', additionalProperties: false },
);

export const MarkReadSchema = Type.Object(
  {
    ids: Type.Optional(Type.Array(Type.String(), { maxItems: 200, description: 'notifications to mark read (at most 200)' })),
    all: Type.Optional(Type.Boolean({ description: '`true`: mark every notification of the caller read' })),
  },
  { $id: 'MarkNotificationsReadRequest', description: 'Exactly one of `ids` and `all`' },
);

export const MarkReadResultSchema = Type.Object(
  { unread: Type.Integer({ description: 'unread notifications left' }) },
  { $id: 'MarkNotificationsReadResponse', additionalProperties: false },
);

const kindFlags = (optional: boolean) =>
  Type.Object(Object.fromEntries(NOTIFICATION_KINDS.map((k) => [k, optional ? Type.Optional(Type.Boolean()) : Type.Boolean()])), {
    additionalProperties: false,
  });

export const NotificationPreferencesSchema = Type.Object(
  {
    mail_configured: Type.Boolean({ description: 'whether this server sends mail at all (JOE_SMTP_URL)' }),
    email: kindFlags(false),
  },
  {
    $id: 'NotificationPreferences',
    additionalProperties: false,
    description: 'Notifications always show in the app; `email` says which kinds are also mailed',
  },
);

export const UpdateNotificationPreferencesSchema = Type.Object(
  { email: kindFlags(true) },
  { $id: 'UpdateNotificationPreferencesRequest', description: 'Kinds left out keep their setting' },
);
