import { WEBHOOK_EVENTS } from '../../domain/webhooks.js';
import type { OutboxAttempt, OutboxRow } from '../../store/outbox.js';
import type { Webhook } from '../../store/webhooks.js';
import { Icon } from '../partials/icons.js';
import { LocalTime } from '../partials/localTime.js';
import { Pager, type KeysetSpot } from '../partials/pager.js';
import { Alert, CopyButton, EmptyState, FieldError, PageHeader, Spinner } from '../partials/ui.js';
import { BreakableUrl } from '../partials/breakable.js';

/** `/admin/webhooks` and `/admin/webhooks/:id` (docs/web-ui.md#webhooks): endpoints, their secret once, and the delivery log. */

export interface WebhookFormState {
  url: string;
  events: string[];
  error: string | null;
}

export interface WebhooksState {
  hooks: readonly Webhook[];
  form: WebhookFormState;
  /** The endpoint just registered and its secret: shown by this response only. */
  created: { url: string; secret: string } | null;
  flash: string | null;
}

export const EMPTY_WEBHOOK_FORM: WebhookFormState = { url: '', events: ['*'], error: null };

const STATUS_BADGE: Record<OutboxRow['status'], string> = {
  pending: 'badge-warning',
  delivered: 'badge-success',
  failed: 'badge-error',
  skipped: 'badge-ghost',
};

function EventsList({ events }: { events: readonly string[] }) {
  return <span class="break-words">{events.includes('*') ? 'All events' : events.join(', ')}</span>;
}

export function WebhooksSection({ hooks, form, created, flash }: WebhooksState) {
  return (
    <div id="webhooks-section" class="space-y-6">
      {flash && <Alert level="success">{flash}</Alert>}
      {created && (
        <div class="alert alert-warning flex-col items-stretch gap-2" role="status">
          <p class="font-semibold break-words">{`Endpoint ${created.url} registered. Copy its signing secret now — it will not be shown again.`}</p>
          <div class="flex items-center gap-2">
            <input
              type="text"
              readonly
              value={created.secret}
              class="input input-sm w-full font-mono bg-base-100 text-base-content"
              aria-label="Signing secret"
            />
            <CopyButton value={created.secret} label="Copy secret" />
          </div>
        </div>
      )}
      <section class="card bg-base-100 border border-base-300" aria-labelledby="new-webhook-title">
        <form
          method="post"
          action="/admin/webhooks"
          hx-post="/admin/webhooks"
          hx-target="#webhooks-section"
          hx-swap="outerHTML"
          class="card-body gap-3"
        >
          <h2 id="new-webhook-title" class="card-title text-base">
            New endpoint
          </h2>
          <div>
            <label for="webhook-url" class="block text-sm font-medium mb-1">
              URL
            </label>
            <input
              id="webhook-url"
              name="url"
              type="url"
              value={form.url}
              placeholder="https://example.com/hooks/joe-links"
              class={`input w-full${form.error ? ' input-error' : ''}`}
              aria-invalid={form.error ? 'true' : undefined}
              aria-describedby={form.error ? 'webhook-error' : undefined}
              autocomplete="off"
            />
            <FieldError id="webhook-error" message={form.error ?? undefined} />
          </div>
          <fieldset>
            <legend class="text-sm font-medium mb-1">Events</legend>
            <div class="grid gap-1 sm:grid-cols-2">
              {['*', ...WEBHOOK_EVENTS].map((e) => (
                <label class="flex items-center gap-2 cursor-pointer">
                  <input type="checkbox" name="events" value={e} checked={form.events.includes(e)} class="checkbox checkbox-sm" />
                  <span class={e === '*' ? '' : 'font-mono text-sm'}>{e === '*' ? 'All events' : e}</span>
                </label>
              ))}
            </div>
          </fieldset>
          <div class="card-actions justify-end">
            <button type="submit" class="btn btn-primary">
              <Spinner />
              Register endpoint
            </button>
          </div>
        </form>
      </section>
      {hooks.length === 0 ? (
        <EmptyState icon="bolt" title="No webhook endpoints">
          Register a URL to receive signed POSTs when links change.
        </EmptyState>
      ) : (
        <ul class="rounded-box border border-base-300 bg-base-100 divide-y divide-base-300" aria-label="Webhook endpoints">
          {hooks.map((h) => (
            <li class="p-4 flex flex-wrap items-center gap-3">
              <div class="min-w-0 flex-1 space-y-1">
                <p class="font-mono text-sm wrap-anywhere">
                  <BreakableUrl url={h.url} />
                </p>
                <p class="text-sm text-base-content/70">
                  <EventsList events={h.events} /> · registered <LocalTime ms={h.createdAt} date />
                </p>
              </div>
              <a class="btn btn-sm" href={`/admin/webhooks/${h.id}`}>
                Deliveries
              </a>
              <form method="post" action={`/admin/webhooks/${h.id}`}>
                <input type="hidden" name="_method" value="DELETE" />
                <button type="submit" class="btn btn-sm btn-ghost" aria-label={`Delete endpoint ${h.url}`}>
                  <Icon name="trash" class="size-4" />
                  Delete
                </button>
              </form>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

export function WebhooksPage(state: WebhooksState) {
  return (
    <>
      <PageHeader
        title="Webhooks"
        subtitle="Signed POSTs (Standard Webhooks) to your endpoints when links change, turn broken or expire. Failed deliveries are retried with growing pauses, eight attempts in all."
      />
      <WebhooksSection {...state} />
    </>
  );
}

export interface DeliveryLogState {
  hook: Webhook;
  rows: ReadonlyArray<OutboxRow & { log: readonly OutboxAttempt[] }>;
  /** Where the page sits among all the endpoint's deliveries, and the pages either side. */
  spot: KeysetSpot;
  flash: string | null;
}

function lastOutcome(log: readonly OutboxAttempt[]): string {
  const last = log[log.length - 1];
  if (!last) return 'not tried yet';
  return last.statusCode !== null
    ? `HTTP ${last.statusCode}${last.error && !last.error.startsWith('HTTP') ? ` (${last.error})` : ''}`
    : (last.error ?? '');
}

export function DeliveryLog({ hook, rows, spot, flash }: DeliveryLogState) {
  return (
    <div id="delivery-log" class="space-y-4">
      {flash && <Alert level="success">{flash}</Alert>}
      {rows.length === 0 ? (
        <EmptyState icon="bolt" title="No deliveries yet" />
      ) : (
        <ul class="rounded-box border border-base-300 bg-base-100 divide-y divide-base-300" aria-label="Deliveries">
          {rows.map((r) => (
            <li class="p-4 space-y-2">
              <div class="flex flex-wrap items-center gap-2">
                <span class={`badge badge-sm ${STATUS_BADGE[r.status]}`}>{r.status}</span>
                <span class="font-mono text-sm">{r.eventType}</span>
                <span class="text-sm text-base-content/70">
                  <LocalTime ms={r.createdAt} />
                </span>
                <form method="post" action={`/admin/webhooks/${hook.id}/deliveries/${r.id}/redeliver`} class="ml-auto">
                  <button type="submit" class="btn btn-xs">
                    <Icon name="refresh" class="size-4" />
                    Redeliver
                  </button>
                </form>
              </div>
              <p class="text-sm break-words">
                {`${r.log.length} ${r.log.length === 1 ? 'attempt' : 'attempts'}, last: ${lastOutcome(r.log)}`}
                {r.status === 'pending' && r.log.length > 0 && (
                  <>
                    {' · next try '}
                    <LocalTime ms={r.nextAttemptAt} />
                  </>
                )}
              </p>
              {r.log.length > 0 && (
                <details>
                  <summary class="text-sm link">Attempts</summary>
                  <ol class="text-sm mt-2 space-y-1 list-decimal list-inside">
                    {r.log.map((a) => (
                      <li class="break-words">
                        <LocalTime ms={a.at} />
                        {` — ${a.statusCode !== null ? `HTTP ${a.statusCode}` : (a.error ?? 'no answer')}, ${a.durationMs} ms`}
                      </li>
                    ))}
                  </ol>
                </details>
              )}
            </li>
          ))}
        </ul>
      )}
      <Pager noun="delivery" nouns="deliveries" keyset={spot} />
    </div>
  );
}

export function DeliveryLogPage(state: DeliveryLogState) {
  return (
    <>
      <PageHeader
        title="Deliveries"
        subtitle={
          <span class="font-mono wrap-anywhere">
            <BreakableUrl url={state.hook.url} /> · <EventsList events={state.hook.events} />
          </span>
        }
        back={{ href: '/admin/webhooks', label: 'Webhooks' }}
      />
      <DeliveryLog {...state} />
    </>
  );
}
