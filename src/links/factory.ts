import { notificationRecorder } from '../notify/linkEvents.js';
import { webhookRecorder } from '../notify/webhooks.js';
import type { Store } from '../store/index.js';
import { LinkEventBus, type LinkEvent } from './events.js';
import { historyRecorder } from './history.js';
import { LinkService } from './service.js';

export interface LinkServiceOptions {
  /** Mail is configured (JOE_SMTP_URL): notifications also write their mail deliveries. */
  mail: boolean;
  /** Told when an event subscriber fails; the change it was told about stands. */
  onSubscriberError?: (err: unknown, event: LinkEvent) => void;
}

/**
 * The one way the links layer is built. The server, the CLI and the OpenAPI
 * generation all call it, so a change is announced the same whichever surface
 * made it: its history event, the owners' notifications with their mail rows
 * and the webhook deliveries, each written in the change's own transaction
 * (docs/notifications.md, docs/history.md).
 */
export function createLinkService(store: Store, opts: LinkServiceOptions): LinkService {
  const events = new LinkEventBus(opts.onSubscriberError);
  const recorders = [historyRecorder(store), notificationRecorder(store, { mail: opts.mail }), webhookRecorder(store)];
  return new LinkService(store, { events, recorders });
}
