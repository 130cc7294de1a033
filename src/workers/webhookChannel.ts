import { signWebhook } from '../domain/webhooks.js';
import { DEFAULT_MAX_ATTEMPTS, type RetryPolicy } from '../domain/outbox.js';
import { GuardedClient, OutboundError, type GuardedClientOptions } from '../net/guardedClient.js';
import type { Store } from '../store/index.js';
import { APP_VERSION } from '../version.js';
import type { ChannelHandler, Delivery } from './outbox.js';

/**
 * The webhook channel of the outbox (docs/notifications.md#webhooks): one
 * signed POST per attempt through the guarded client, so private and
 * loopback addresses are refused unless JOE_WEBHOOK_ALLOW_PRIVATE; redirects
 * are not followed; 10 s bound the whole request; any 2xx is delivered.
 * `webhook-id` stays the same on every attempt and redelivery of a message;
 * the timestamp and signature are made for each attempt.
 */

export const WEBHOOK_TIMEOUT_MS = 10_000;
export const WEBHOOK_USER_AGENT = `joe-links-webhooks/${APP_VERSION}`;

export interface WebhookChannelOptions {
  store: Pick<Store, 'webhooks' | 'now'>;
  retryBaseMs: number;
  allowPrivate: boolean;
  /** Tests widen the address policy the way the health checker's tests do. */
  addressAllowed?: GuardedClientOptions['addressAllowed'];
  timeoutMs?: number;
}

export function webhookChannel(opts: WebhookChannelOptions): ChannelHandler & { close(): Promise<void> } {
  const timeoutMs = opts.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  const client = new GuardedClient(
    { allowPrivate: opts.allowPrivate, userAgent: WEBHOOK_USER_AGENT, addressAllowed: opts.addressAllowed },
    timeoutMs,
  );
  const policy: RetryPolicy = { baseMs: opts.retryBaseMs, maxAttempts: DEFAULT_MAX_ATTEMPTS };
  return {
    channel: 'webhook',
    policy,
    attemptTimeoutMs: timeoutMs,
    async deliver(row, signal): Promise<Delivery> {
      const hook = row.webhookId ? await opts.store.webhooks.get(row.webhookId) : null;
      if (!hook) return { kind: 'skipped' };
      const timestamp = Math.floor(opts.store.now() / 1000);
      try {
        const res = await client.fetch(hook.url, {
          method: 'POST',
          body: row.payload,
          headers: {
            'content-type': 'application/json',
            'webhook-id': row.messageId,
            'webhook-timestamp': String(timestamp),
            'webhook-signature': signWebhook(hook.secret, row.messageId, timestamp, row.payload),
          },
          followRedirects: false,
          timeoutMs,
          signal,
        });
        if (res.status >= 200 && res.status < 300) return { kind: 'sent', statusCode: res.status };
        return { kind: 'failed', statusCode: res.status, error: `HTTP ${res.status}` };
      } catch (e) {
        if (signal.aborted) throw e;
        if (e instanceof OutboundError && e.kind === 'refused') {
          return {
            kind: 'failed',
            statusCode: null,
            error: 'refused: the URL leads to a private or loopback address (JOE_WEBHOOK_ALLOW_PRIVATE is off)',
          };
        }
        return { kind: 'failed', statusCode: null, error: (e as Error).message || 'request failed' };
      }
    },
    close: () => client.close(),
  };
}
