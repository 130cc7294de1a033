import { Type } from '@sinclair/typebox';
import { NOTIFICATION_KINDS } from '../../domain/notifications.js';
import { WEBHOOK_EVENTS } from '../../domain/webhooks.js';
import { Nullable, ref, StringEnum, Timestamp } from './schemaRef.js';

/**
 * The named schemas of notifications and webhooks (docs/notifications.md,
 * docs/api.md#notifications-and-webhooks); listed in NAMED_SCHEMAS.
 */

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

const eventsField = Type.Array(Type.String(), {
  description: `event types to receive, or ["*"] for all: ${WEBHOOK_EVENTS.join(', ')}`,
});

export const CreateWebhookSchema = Type.Object(
  {
    url: Type.String({ description: 'an absolute http or https URL; deliveries are POSTed here' }),
    events: eventsField,
    secret: Type.Optional(Type.String({ description: '`whsec_` + base64 of 24–64 random bytes; generated (32 bytes) when left out' })),
  },
  { $id: 'CreateWebhookRequest' },
);

const webhookFields = {
  id: Type.String(),
  url: Type.String(),
  events: Type.Array(Type.String()),
  created_at: Timestamp(),
};

export const WebhookSchema = Type.Object(webhookFields, { $id: 'WebhookResponse', additionalProperties: false });

export const WebhookCreatedSchema = Type.Object(
  { ...webhookFields, secret: Type.String({ description: 'the signing secret; shown in this response only' }) },
  { $id: 'WebhookCreatedResponse', additionalProperties: false },
);

export const WebhookListSchema = Type.Object(
  { webhooks: Type.Array(ref(WebhookSchema)) },
  { $id: 'WebhookListResponse', additionalProperties: false },
);

export const DeliveryAttemptSchema = Type.Object(
  {
    attempt: Type.Integer({ description: '1 for the first try' }),
    at: Timestamp(),
    status_code: Nullable(Type.Integer({ description: 'the HTTP status answered; null when no answer came' })),
    error: Nullable(Type.String({ description: 'why it failed, when it did' })),
    duration_ms: Type.Integer(),
  },
  { $id: 'WebhookDeliveryAttempt', additionalProperties: false },
);

export const DeliverySchema = Type.Object(
  {
    id: Type.String(),
    message_id: Type.String({ description: 'the `webhook-id` header: the same on every attempt and redelivery of one message' }),
    type: Type.String(),
    status: StringEnum(['pending', 'delivered', 'failed', 'skipped'] as const),
    created_at: Timestamp(),
    next_attempt_at: Nullable(Timestamp('when a pending delivery is tried next')),
    finished_at: Nullable(Timestamp()),
    attempts: Type.Array(ref(DeliveryAttemptSchema)),
  },
  { $id: 'WebhookDelivery', additionalProperties: false },
);

export const DeliveryListSchema = Type.Object(
  { deliveries: Type.Array(ref(DeliverySchema)), next_cursor: Nullable(Type.String()) },
  { $id: 'WebhookDeliveryListResponse', additionalProperties: false },
);

export const NOTIFY_SCHEMAS = [
  EventActorSchema,
  NotificationSchema,
  NotificationListSchema,
  MarkReadSchema,
  MarkReadResultSchema,
  NotificationPreferencesSchema,
  UpdateNotificationPreferencesSchema,
  CreateWebhookSchema,
  WebhookSchema,
  WebhookCreatedSchema,
  WebhookListSchema,
  DeliveryAttemptSchema,
  DeliverySchema,
  DeliveryListSchema,
];
