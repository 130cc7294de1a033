import { Type } from '@sinclair/typebox';
import { WEBHOOK_EVENTS } from '../../../domain/webhooks.js';
import { Nullable, ref, StringEnum, Timestamp } from './ref.js';

/** Webhook endpoints and their deliveries (docs/notifications.md#webhooks, docs/api.md#notifications-and-webhooks). */

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
