import type { LinkOwner, LinkShare } from '../../store/types.js';
import { Icon } from './icons.js';
import { Avatar, FieldError, Spinner } from './ui.js';

/**
 * A link's owners and shares panels (docs/links.md#owners-and-shares): the lists, Remove,
 * and the add-by-email forms, each re-rendered alone by the panel's own routes.
 */

/** A note shown beside one person of the owners or shares list. */
export interface MemberNotice {
  userId: string;
  message: string;
}

/** The note beside a person, announced politely and marked so the eye finds the row. */
function Notice({ notice, userId }: { notice: MemberNotice | null | undefined; userId: string }) {
  if (!notice || notice.userId !== userId) return null;
  return (
    <p class="text-sm flex items-center gap-1 mt-0.5" role="status">
      <Icon name="check" class="size-4 shrink-0" />
      {notice.message}
    </p>
  );
}

/** The add-by-email form of the owners and shares panels; a refusal is said beside the field. */
function AddPersonForm({
  action,
  target,
  id,
  label,
  button,
  error,
  email,
}: {
  action: string;
  target: string;
  id: string;
  label: string;
  button: string;
  error: string | null | undefined;
  email: string | undefined;
}) {
  return (
    <form method="post" action={action} hx-post={action} hx-target={target} hx-swap="outerHTML" class="flex flex-wrap gap-2 items-start">
      <div class="flex-1 min-w-48">
        <label for={id} class="block text-sm font-medium mb-1">
          {label}
        </label>
        <input
          id={id}
          name="email"
          type="email"
          value={error ? email : undefined}
          class={`input w-full${error ? ' input-error' : ''}`}
          placeholder="colleague@example.com"
          autocomplete="off"
          aria-invalid={error ? 'true' : undefined}
          aria-describedby={error ? `${id}-error` : undefined}
        />
        <FieldError id={`${id}-error`} message={error ?? undefined} />
      </div>
      <button type="submit" class="btn sm:mt-6">
        <Spinner />
        {button}
      </button>
    </form>
  );
}

export function OwnersSection({
  linkId,
  owners,
  canManage,
  error,
  notice,
  email,
}: {
  linkId: string;
  owners: readonly LinkOwner[];
  canManage: boolean;
  error?: string | null;
  notice?: MemberNotice | null;
  email?: string;
}) {
  const base = `/dashboard/links/${linkId}/owners`;
  return (
    <section id="owners-section" class="card bg-base-100 border border-base-300" aria-labelledby="owners-title">
      <div class="card-body gap-3">
        <h2 id="owners-title" class="card-title text-base">
          Owners
        </h2>
        <ul class="divide-y divide-base-300">
          {owners.map((o) => (
            <li class={`flex items-center gap-3 py-2${notice?.userId === o.userId ? ' member-noticed' : ''}`}>
              <Avatar name={o.displayName || o.email} />
              <div class="min-w-0 flex-1">
                <p class="font-medium truncate">
                  {o.displayName}
                  {o.isPrimary && <span class="badge badge-sm badge-neutral ml-2">primary</span>}
                </p>
                <p class="text-sm text-base-content/70 truncate">{o.email}</p>
                <Notice notice={notice} userId={o.userId} />
              </div>
              {canManage && !o.isPrimary && (
                <form
                  method="post"
                  action={`${base}/${o.userId}`}
                  hx-delete={`${base}/${o.userId}`}
                  hx-target="#owners-section"
                  hx-swap="outerHTML"
                >
                  <input type="hidden" name="_method" value="DELETE" />
                  <button type="submit" class="btn btn-ghost btn-sm" aria-label={`Remove ${o.displayName || o.email} as co-owner`}>
                    Remove
                  </button>
                </form>
              )}
            </li>
          ))}
        </ul>
        {canManage && (
          <AddPersonForm
            action={base}
            target="#owners-section"
            id="owner-email"
            label="Add a co-owner"
            button="Add co-owner"
            error={error}
            email={email}
          />
        )}
      </div>
    </section>
  );
}

export function SharesPanel({
  linkId,
  shares,
  error,
  notice,
  email,
}: {
  linkId: string;
  shares: readonly LinkShare[];
  error?: string | null;
  notice?: MemberNotice | null;
  email?: string;
}) {
  const base = `/dashboard/links/${linkId}/shares`;
  return (
    <section id="shares-panel" class="card bg-base-100 border border-base-300" aria-labelledby="shares-title">
      <div class="card-body gap-3">
        <h2 id="shares-title" class="card-title text-base">
          Shared with
        </h2>
        <p class="text-sm text-base-content/70">
          This link is secure: only its owners and the people listed here can follow it, after signing in.
        </p>
        {shares.length === 0 ? (
          <p class="text-sm">No users with access yet.</p>
        ) : (
          <ul class="divide-y divide-base-300">
            {shares.map((s) => (
              <li class={`flex items-center gap-3 py-2${notice?.userId === s.userId ? ' member-noticed' : ''}`}>
                <Avatar name={s.displayName || s.email} />
                <div class="min-w-0 flex-1">
                  <p class="font-medium truncate">{s.displayName}</p>
                  <p class="text-sm text-base-content/70 truncate">{s.email}</p>
                  <Notice notice={notice} userId={s.userId} />
                </div>
                <form
                  method="post"
                  action={`${base}/${s.userId}`}
                  hx-delete={`${base}/${s.userId}`}
                  hx-target="#shares-panel"
                  hx-swap="outerHTML"
                >
                  <input type="hidden" name="_method" value="DELETE" />
                  <button type="submit" class="btn btn-ghost btn-sm" aria-label={`Remove access for ${s.displayName || s.email}`}>
                    Remove
                  </button>
                </form>
              </li>
            ))}
          </ul>
        )}
        <AddPersonForm
          action={base}
          target="#shares-panel"
          id="share-email"
          label="Share with"
          button="Share"
          error={error}
          email={email}
        />
      </div>
    </section>
  );
}
