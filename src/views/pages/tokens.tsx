import { isTokenActive } from '../../domain/tokens.js';
import type { ApiToken } from '../../store/tokens.js';
import { LocalTime } from '../partials/localTime.js';
import { Icon } from '../partials/icons.js';
import { CopyButton, EmptyState, FieldError, Modal, PageHeader, Panel, Spinner } from '../partials/ui.js';

/** Personal access tokens page (docs/auth.md#token-settings-page). */

export interface TokensState {
  tokens: readonly ApiToken[];
  now: number;
  /** The plaintext of a token created by this very request; never shown again. */
  created: { name: string; plaintext: string } | null;
  form: { name: string; expiresIn: string; error: string | null };
}

const EXPIRY_OPTIONS: Array<[string, string]> = [
  ['', 'Never'],
  ['720h', '30 days'],
  ['2160h', '90 days'],
  ['8760h', '1 year'],
];

function StatusBadge({ token, now }: { token: ApiToken; now: number }) {
  if (token.revokedAt !== null) return <span class="badge badge-sm badge-ghost border-base-content/40">Revoked</span>;
  if (!isTokenActive(token, now)) return <span class="badge badge-sm badge-warning">Expired</span>;
  return <span class="badge badge-sm badge-success">Active</span>;
}

export function TokensSection({ tokens, now, created, form }: TokensState) {
  return (
    <div id="tokens-section" class="space-y-6">
      {/* A column, not daisyUI's alert grid: at 375 px the grid squeezed the sentence to a word a line. */}
      {created && (
        <div class="alert alert-warning flex flex-col items-stretch gap-2" role="status">
          <p class="font-semibold">{`Token "${created.name}" created. Copy it now — it will not be shown again.`}</p>
          <div class="flex items-center gap-2 min-w-0">
            <input
              type="text"
              readonly
              value={created.plaintext}
              class="input input-sm w-full min-w-0 font-mono bg-base-100 text-base-content"
              aria-label="New token"
            />
            <CopyButton value={created.plaintext} label="Copy token" />
          </div>
        </div>
      )}
      <section class="card bg-base-100 border border-base-300" aria-labelledby="new-token-title">
        <div class="card-body gap-3">
          <h2 id="new-token-title" class="card-title text-base">
            New token
          </h2>
          <form
            method="post"
            action="/dashboard/settings/tokens"
            hx-post="/dashboard/settings/tokens"
            hx-target="#tokens-section"
            hx-swap="outerHTML"
            class="grid gap-3 sm:grid-cols-[2fr_1fr_auto] items-start"
          >
            <div>
              <label for="token-name" class="block text-sm font-medium mb-1">
                Name
              </label>
              <input
                id="token-name"
                name="name"
                type="text"
                value={form.name}
                placeholder="e.g. laptop CLI"
                class={`input w-full${form.error ? ' input-error' : ''}`}
                aria-invalid={form.error ? 'true' : undefined}
                aria-describedby={form.error ? 'token-name-error' : undefined}
                autocomplete="off"
              />
              <FieldError id="token-name-error" message={form.error ?? undefined} />
            </div>
            <div>
              <label for="token-expires" class="block text-sm font-medium mb-1">
                Expires
              </label>
              <select id="token-expires" name="expires_in" class="select w-full">
                {EXPIRY_OPTIONS.map(([v, label]) => (
                  <option value={v} selected={form.expiresIn === v}>
                    {label}
                  </option>
                ))}
              </select>
            </div>
            <button type="submit" class="btn btn-primary sm:mt-6">
              <Spinner />
              Create token
            </button>
          </form>
        </div>
      </section>
      {tokens.length === 0 ? (
        <EmptyState icon="key" title="No tokens yet">
          Create a token to use the REST API, the CLI or the browser extension.
        </EmptyState>
      ) : (
        <div class="overflow-x-auto rounded-box border border-base-300 bg-base-100">
          <table class="table table-sm md:table-md max-sm:stacked-table">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">Expires</th>
                <th scope="col">Status</th>
                <th scope="col" class="text-right">
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {tokens.map((t) => (
                <tr id={`token-${t.id}`}>
                  <td class="font-medium wrap-anywhere" data-label="Name">
                    {t.name}
                  </td>
                  <td class="whitespace-nowrap" data-label="Created">
                    <LocalTime ms={t.createdAt} date />
                  </td>
                  <td class="whitespace-nowrap" data-label="Last used">
                    {t.lastUsedAt === null ? 'Never' : <LocalTime ms={t.lastUsedAt} date />}
                  </td>
                  <td class="whitespace-nowrap" data-label="Expires">
                    {t.expiresAt === null ? 'Never' : <LocalTime ms={t.expiresAt} date />}
                  </td>
                  <td data-label="Status">
                    <StatusBadge token={t} now={now} />
                  </td>
                  <td class="text-right">
                    {isTokenActive(t, now) && (
                      <a
                        href={`/dashboard/settings/tokens/${t.id}/confirm-revoke`}
                        hx-get={`/dashboard/settings/tokens/${t.id}/confirm-revoke`}
                        hx-target="#modal"
                        class="btn btn-ghost btn-xs"
                      >
                        Revoke
                      </a>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}

export function TokensPage(state: TokensState) {
  return (
    <>
      <PageHeader
        title="API Tokens"
        subtitle="Personal access tokens for the REST API, the CLI and the browser extension. A token acts as you."
      />
      <TokensSection {...state} />
    </>
  );
}

export function ConfirmRevoke({ token, asModal }: { token: ApiToken; asModal: boolean }) {
  const action = `/dashboard/settings/tokens/${token.id}`;
  const body = (
    <>
      <p class="break-words">{`Programs using "${token.name}" will stop working at once. This cannot be undone.`}</p>
      <div class="modal-action">
        {asModal ? (
          <button type="button" class="btn btn-ghost" data-modal-close autofocus>
            Cancel
          </button>
        ) : (
          <a class="btn btn-ghost" href="/dashboard/settings/tokens">
            Cancel
          </a>
        )}
        <form
          method="post"
          action={action}
          hx-delete={asModal ? action : undefined}
          hx-target={asModal ? '#tokens-section' : undefined}
          hx-swap={asModal ? 'outerHTML' : undefined}
          data-close-modal-on-success
        >
          <input type="hidden" name="_method" value="DELETE" />
          <button type="submit" class="btn btn-error">
            <Spinner />
            <Icon name="key" class="size-4" />
            Revoke token
          </button>
        </form>
      </div>
    </>
  );
  return asModal ? <Modal title="Revoke token?">{body}</Modal> : <Panel title="Revoke token?">{body}</Panel>;
}
