import { createHmac, randomBytes } from 'node:crypto';
import { AppError } from './errors.js';

/**
 * Webhook rules (docs/notifications.md#webhooks): the event names, what an
 * endpoint registration must look like, and the Standard Webhooks signature:
 * `v1,` + base64 HMAC-SHA256 of `{id}.{timestamp}.{body}`, keyed by the
 * base64-decoded bytes of the secret after its `whsec_` prefix.
 */

export const WEBHOOK_EVENTS = [
  'link.created',
  'link.updated',
  'link.deleted',
  'link.archived',
  'link.unarchived',
  'link.renewed',
  'link.restored',
  'link.health_changed',
  'link.expired',
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

export const ALL_EVENTS = '*';
export const SECRET_PREFIX = 'whsec_';
/** Standard Webhooks keys are 24 to 64 bytes. */
const MIN_KEY_BYTES = 24;
const MAX_KEY_BYTES = 64;
const MAX_URL_LENGTH = 2048;

export interface WebhookInput {
  url: string;
  events: string[];
  secret: string;
}

/** 32 random bytes: `whsec_` + base64. */
export function generateSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

/** The HMAC key of a secret, or null when it is not `whsec_` + canonical base64 of 24–64 bytes. */
export function secretKey(secret: string): Buffer | null {
  if (!secret.startsWith(SECRET_PREFIX)) return null;
  const b64 = secret.slice(SECRET_PREFIX.length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(b64)) return null;
  const key = Buffer.from(b64, 'base64');
  if (key.toString('base64') !== b64) return null;
  return key.length >= MIN_KEY_BYTES && key.length <= MAX_KEY_BYTES ? key : null;
}

/** Checks a registration; every problem is BAD_REQUEST naming its field, so nothing is stored. */
export function validateWebhookInput(input: { url: unknown; events: unknown; secret?: unknown }): WebhookInput {
  const url = typeof input.url === 'string' ? input.url.trim() : '';
  let parsed: URL | null;
  try {
    parsed = /^https?:\/\/[^/\\?#]/i.test(url) ? new URL(url) : null;
  } catch {
    parsed = null;
  }
  if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || parsed.hostname === '' || url.length > MAX_URL_LENGTH) {
    throw new AppError('BAD_REQUEST', 'url must be an absolute http or https URL', 'url');
  }
  if (parsed.username !== '' || parsed.password !== '') throw new AppError('BAD_REQUEST', 'url must not carry credentials', 'url');
  const events = input.events;
  if (!Array.isArray(events) || events.length === 0 || !events.every((e) => typeof e === 'string')) {
    throw new AppError('BAD_REQUEST', 'events must be a non-empty list of event names, or ["*"]', 'events');
  }
  const unique = [...new Set(events as string[])];
  if (unique.includes(ALL_EVENTS) && unique.length > 1) throw new AppError('BAD_REQUEST', '"*" stands alone in events', 'events');
  const unknown = unique.filter((e) => e !== ALL_EVENTS && !(WEBHOOK_EVENTS as readonly string[]).includes(e));
  if (unknown.length > 0) {
    throw new AppError(
      'BAD_REQUEST',
      `unknown event ${unknown.map((e) => JSON.stringify(e)).join(', ')}; known: ${WEBHOOK_EVENTS.join(', ')}`,
      'events',
    );
  }
  let secret: string;
  if (input.secret === undefined || input.secret === null) secret = generateSecret();
  else if (typeof input.secret === 'string' && secretKey(input.secret) !== null) secret = input.secret;
  else throw new AppError('BAD_REQUEST', 'secret must be whsec_ followed by the base64 of 24 to 64 random bytes', 'secret');
  return { url, events: unique, secret };
}

export function subscribes(events: readonly string[], type: string): boolean {
  return events.includes(ALL_EVENTS) || events.includes(type);
}

/** The `webhook-signature` value of one attempt. */
export function signWebhook(secret: string, messageId: string, timestampSeconds: number, body: string): string {
  const key = secretKey(secret);
  if (!key) throw new Error('invalid webhook secret');
  return `v1,${createHmac('sha256', key).update(`${messageId}.${timestampSeconds}.${body}`).digest('base64')}`;
}
