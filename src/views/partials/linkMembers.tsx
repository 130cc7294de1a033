import type { LinkGroup } from '../../store/groups.js';
import type { LinkOwner, LinkShare } from '../../store/types.js';
import { Icon } from './icons.js';
import { Avatar, FieldError, Spinner } from './ui.js';

/**
 * A link's owners and shares panels (docs/links.md#owners-and-shares): the people and groups
 * listed, Remove, and the add form whose field suggests people and groups as one types, each
 * re-rendered alone by the panel's own routes.
 */

/** A note shown beside one person (their user id) or group (`group:` and its id) of the owners or shares list. */
export interface MemberNotice {
  userId: string;
  message: string;
}

/** The key a group's row goes by in a MemberNotice. */
export const groupKey = (groupId: string): string => `group:${groupId}`;

/** The note beside a person or group, announced politely and marked so the eye finds the row. */
function Notice({ notice, userId }: { notice: MemberNotice | null | undefined; userId: string }) {
  if (!notice || notice.userId !== userId) return null;
  return (
    <p class="text-sm flex items-center gap-1 mt-0.5" role="status">
      <Icon name="check" class="size-4 shrink-0" />
      {notice.message}
    </p>
  );
}

/**
 * The add form of the owners and shares panels: one field taking a person's email or a
 * group's name. As one types, `…/suggest` fills a list of matching people and groups under
 * it (static/js/app.js makes the field a combobox: arrows, Enter, Escape, tap); choosing a
 * group sends its name as `group`. Without JavaScript the field is a plain form field, and
 * a name without `@` is read as a group's. A refusal is said beside the field.
 */
function AddMemberForm({
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
  const listId = `${id}-suggestions`;
  return (
    <form method="post" action={action} hx-post={action} hx-target={target} hx-swap="outerHTML" class="flex flex-wrap gap-2 items-start">
      <div class="flex-1 min-w-48 relative">
        <label for={id} class="block text-sm font-medium mb-1">
          {label}
        </label>
        <input type="hidden" name="group" value="" data-picker-group />
        <input
          id={id}
          name="email"
          type="text"
          inputmode="email"
          value={error ? email : undefined}
          class={`input w-full${error ? ' input-error' : ''}`}
          placeholder="Email or group name"
          autocomplete="off"
          autocapitalize="none"
          spellcheck={false}
          role="combobox"
          aria-autocomplete="list"
          aria-expanded="false"
          aria-invalid={error ? 'true' : undefined}
          aria-describedby={`${id}-help${error ? ` ${id}-error` : ''}`}
          data-picker={listId}
          hx-get={`${action}/suggest`}
          hx-trigger="input changed delay:200ms"
          hx-target={`#${listId}`}
          hx-swap="innerHTML"
          hx-sync="this:replace"
        />
        <p id={`${id}-help`} class="text-sm text-base-content/70 mt-1">
          A person's email or a group's name. Type two letters for suggestions.
        </p>
        <div id={listId} data-picker-list class="absolute left-0 right-0 z-20"></div>
        <FieldError id={`${id}-error`} message={error ?? undefined} />
      </div>
      <button type="submit" class="btn sm:mt-6">
        <Spinner />
        {button}
      </button>
    </form>
  );
}

/** One suggestion of the picker: a group by name, or a person by name and email. */
export type MemberSuggestion =
  { kind: 'group'; name: string; description: string } | { kind: 'person'; email: string; displayName: string };

/** The picker's list under its field (`listId`): the options, or why there are none. */
export function MemberSuggestions({
  listId,
  suggestions,
  typed,
}: {
  listId: string;
  suggestions: readonly MemberSuggestion[];
  typed: string;
}) {
  if (suggestions.length === 0) {
    return (
      <p class="mt-1 rounded-box border border-base-300 bg-base-100 p-3 text-sm shadow-md" data-picker-empty>
        {`No person or group matches "${typed}". Someone who is in no group yet is found by their full email.`}
      </p>
    );
  }
  return (
    <ul
      id={`${listId}-box`}
      role="listbox"
      aria-label="People and groups"
      class="mt-1 max-h-72 overflow-y-auto rounded-box border border-base-300 bg-base-100 p-1 shadow-md"
    >
      {suggestions.map((s, i) => (
        <li
          id={`${listId}-${i}`}
          role="option"
          aria-selected="false"
          class="picker-option flex items-center gap-3 rounded-field px-3 py-2 min-h-11 cursor-pointer"
          data-pick-kind={s.kind}
          data-pick-value={s.kind === 'group' ? s.name : s.email}
        >
          {s.kind === 'group' ? (
            <>
              <GroupAvatar />
              <span class="min-w-0 flex-1">
                <span class="font-medium wrap-anywhere">{s.name}</span> <span class="badge badge-sm badge-secondary">group</span>
                {s.description && <span class="block text-sm text-base-content/70 truncate">{s.description}</span>}
              </span>
            </>
          ) : (
            <>
              <Avatar name={s.displayName || s.email} />
              <span class="min-w-0 flex-1">
                <span class="block font-medium truncate">{s.displayName || s.email}</span>
                <span class="block text-sm text-base-content/70 truncate">{s.email}</span>
              </span>
            </>
          )}
        </li>
      ))}
    </ul>
  );
}

function GroupAvatar() {
  return (
    <span
      class="size-8 shrink-0 rounded-full bg-secondary text-secondary-content inline-flex items-center justify-center"
      aria-hidden="true"
    >
      <Icon name="users" class="size-4" />
    </span>
  );
}

/** A group in the owners or shares list: badged "group", its name leading to its page, removable like a person. */
function GroupMemberRow({
  group,
  removeAction,
  target,
  removeLabel,
  notice,
}: {
  group: LinkGroup;
  removeAction: string | null;
  target: string;
  removeLabel: string;
  notice: MemberNotice | null | undefined;
}) {
  const key = groupKey(group.groupId);
  return (
    <li class={`flex items-center gap-3 py-2${notice?.userId === key ? ' member-noticed' : ''}`}>
      <GroupAvatar />
      <div class="min-w-0 flex-1">
        <p class="font-medium flex flex-wrap items-center gap-2">
          <a href={`/dashboard/groups/${group.name}`} class="link link-hover wrap-anywhere">
            {group.name}
          </a>
          <span class="badge badge-sm badge-secondary">group</span>
        </p>
        <Notice notice={notice} userId={key} />
      </div>
      {removeAction && (
        <form method="post" action={removeAction} hx-delete={removeAction} hx-target={target} hx-swap="outerHTML">
          <input type="hidden" name="_method" value="DELETE" />
          <button type="submit" class="btn btn-ghost btn-sm" aria-label={removeLabel}>
            Remove
          </button>
        </form>
      )}
    </li>
  );
}

export function OwnersSection({
  linkId,
  owners,
  groups,
  canManage,
  error,
  notice,
  email,
}: {
  linkId: string;
  owners: readonly LinkOwner[];
  /** The groups that own the link, after the people. */
  groups: readonly LinkGroup[];
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
          {groups.map((g) => (
            <GroupMemberRow
              group={g}
              removeAction={canManage ? `${base}/groups/${g.groupId}` : null}
              target="#owners-section"
              removeLabel={`Remove the group ${g.name} as co-owner`}
              notice={notice}
            />
          ))}
        </ul>
        {canManage && (
          <AddMemberForm
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
  groups,
  error,
  notice,
  email,
}: {
  linkId: string;
  shares: readonly LinkShare[];
  /** The groups the link is shared with, after the people. */
  groups: readonly LinkGroup[];
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
          This link is secure: only its owners and the people and groups listed here can follow it, after signing in.
        </p>
        {shares.length === 0 && groups.length === 0 ? (
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
            {groups.map((g) => (
              <GroupMemberRow
                group={g}
                removeAction={`${base}/groups/${g.groupId}`}
                target="#shares-panel"
                removeLabel={`Remove access for the group ${g.name}`}
                notice={notice}
              />
            ))}
          </ul>
        )}
        <AddMemberForm
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
