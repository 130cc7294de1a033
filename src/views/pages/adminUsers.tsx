import type { User } from '../../store/types.js';
import { LocalTime } from '../partials/localTime.js';
import { Icon } from '../partials/icons.js';
import { plural } from '../format.js';
import { Alert, Avatar, CopyButton, EmptyState, Modal, PageHeader, Panel, Spinner } from '../partials/ui.js';

/** The people admin page of docs/web-ui.md#admin-screens: roles, local sign-in links, deleting a user. */

export interface UserRowProps {
  user: User;
  selfId: string;
  localMode: boolean;
}

export function UserRow({ user, selfId, localMode }: UserRowProps) {
  const name = user.displayName || user.email;
  const base = `/admin/users/${user.id}`;
  return (
    <tr id={`user-${user.id}`} class="hover:bg-base-200/60">
      <td>
        <span class="flex items-center gap-2">
          <Avatar name={name} />
          <span class="min-w-0">
            <span class="font-medium">{user.displayName}</span>
            {user.id === selfId && <span class="badge badge-xs badge-accent ml-1">you</span>}
            <span class="block text-xs text-base-content/70 truncate sm:hidden">{user.email}</span>
          </span>
        </span>
      </td>
      <td class="hidden sm:table-cell wrap-anywhere">{user.email}</td>
      <td class="hidden md:table-cell">{user.provider === 'local' ? 'local' : 'OIDC'}</td>
      <td data-label="Role">
        <form
          method="post"
          action={`${base}/role`}
          hx-put={`${base}/role`}
          hx-trigger="change"
          hx-target={`#user-${user.id}`}
          hx-swap="outerHTML"
          class="flex items-center gap-2"
        >
          <input type="hidden" name="_method" value="PUT" />
          <select name="role" class="select select-sm w-24" aria-label={`Role of ${name}`}>
            <option value="user" selected={user.role === 'user'}>
              user
            </option>
            <option value="admin" selected={user.role === 'admin'}>
              admin
            </option>
          </select>
          <button type="submit" class="btn btn-sm no-js-only">
            Save
          </button>
        </form>
      </td>
      <td class="hidden md:table-cell whitespace-nowrap text-sm">
        <LocalTime ms={user.createdAt} date />
      </td>
      <td>
        <div class="flex justify-end gap-1">
          {localMode && (
            <form method="post" action={`${base}/sign-in-link`} hx-post={`${base}/sign-in-link`} hx-target="#modal">
              <button type="submit" class="btn btn-ghost btn-xs whitespace-nowrap">
                <Icon name="key" class="size-4" />
                <span class="sr-only md:not-sr-only">New sign-in link</span>
              </button>
            </form>
          )}
          {user.id !== selfId && (
            <a
              href={`${base}/confirm-delete`}
              hx-get={`${base}/confirm-delete`}
              hx-target="#modal"
              class="btn btn-ghost btn-xs btn-square tooltip tooltip-left"
              data-tip="Delete"
              aria-label={`Delete ${name}`}
            >
              <Icon name="trash" class="size-4" />
            </a>
          )}
        </div>
      </td>
    </tr>
  );
}

/** The one-time sign-in URL, shown once right after it was made (docs/auth.md#local-mode). */
export function SignInLinkReveal({ email, url }: { email: string; url: string }) {
  return (
    <div class="space-y-2">
      <p class="text-sm">
        {`One-time sign-in link for ${email}. It works once, for 15 minutes. Copy it now — it will not be shown again.`}
      </p>
      <div class="flex items-center gap-2">
        <input type="text" readonly value={url} class="input input-sm w-full font-mono" aria-label="Sign-in link" />
        <CopyButton value={url} label="Copy sign-in link" />
      </div>
    </div>
  );
}

export function SignInLinkModal({ email, url, asModal }: { email: string; url: string; asModal: boolean }) {
  const body = (
    <>
      <SignInLinkReveal email={email} url={url} />
      {asModal && (
        <div class="modal-action">
          <button type="button" class="btn" data-modal-close>
            Done
          </button>
        </div>
      )}
    </>
  );
  return asModal ? <Modal title="New sign-in link">{body}</Modal> : <Panel title="New sign-in link">{body}</Panel>;
}

export interface AddUserState {
  values: { email: string; name: string; role: string };
  error: string | null;
  created: { email: string; url: string } | null;
}

function AddUserForm({ state }: { state: AddUserState }) {
  const v = state.values;
  return (
    <section class="card bg-base-100 border border-base-300 mb-6" aria-labelledby="add-user-title">
      <div class="card-body gap-3">
        <h2 id="add-user-title" class="card-title text-base">
          Add user
        </h2>
        <p class="text-sm text-base-content/70">Creates a local account and a one-time sign-in link to hand to the person.</p>
        {state.error && <Alert>{state.error}</Alert>}
        {state.created && (
          <div class="alert alert-success flex-col items-stretch">
            <SignInLinkReveal email={state.created.email} url={state.created.url} />
          </div>
        )}
        <form
          method="post"
          action="/admin/users"
          hx-post="/admin/users"
          hx-target="#users-section"
          hx-swap="outerHTML"
          class="grid gap-3 sm:grid-cols-[2fr_2fr_1fr_auto] items-end"
        >
          <div>
            <label for="new-user-email" class="block text-sm font-medium mb-1">
              Email
            </label>
            <input id="new-user-email" name="email" type="email" required value={v.email} class="input w-full" autocomplete="off" />
          </div>
          <div>
            <label for="new-user-name" class="block text-sm font-medium mb-1">
              Name (optional)
            </label>
            <input id="new-user-name" name="name" type="text" value={v.name} class="input w-full" autocomplete="off" />
          </div>
          <div>
            <label for="new-user-role" class="block text-sm font-medium mb-1">
              Role
            </label>
            <select id="new-user-role" name="role" class="select w-full">
              <option value="user" selected={v.role !== 'admin'}>
                user
              </option>
              <option value="admin" selected={v.role === 'admin'}>
                admin
              </option>
            </select>
          </div>
          <button type="submit" class="btn btn-primary">
            <Spinner />
            Add user
          </button>
        </form>
      </div>
    </section>
  );
}

export function UsersSection({
  users,
  selfId,
  localMode,
  addUser,
}: {
  users: readonly User[];
  selfId: string;
  localMode: boolean;
  addUser: AddUserState;
}) {
  return (
    <div id="users-section">
      {localMode && <AddUserForm state={addUser} />}
      <p class="text-sm text-base-content/70 mb-2">{plural(users.length, 'user')}</p>
      {users.length === 0 ? (
        <EmptyState icon="users" title="No users yet." />
      ) : (
        <div class="overflow-x-auto rounded-box border border-base-300 bg-base-100">
          <table class="table table-sm md:table-md max-sm:stacked-table">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col" class="hidden sm:table-cell">
                  Email
                </th>
                <th scope="col" class="hidden md:table-cell">
                  Provider
                </th>
                <th scope="col">Role</th>
                <th scope="col" class="hidden md:table-cell">
                  Joined
                </th>
                <th scope="col" class="text-right">
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {users.map((u) => (
                <UserRow user={u} selfId={selfId} localMode={localMode} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}

export function UsersPage(props: { users: readonly User[]; selfId: string; localMode: boolean; addUser: AddUserState }) {
  return (
    <>
      <PageHeader title="Users" subtitle="Everyone who can sign in, and their roles." />
      <UsersSection {...props} />
    </>
  );
}

/** Who takes over what the deleted user held alone; empty means the acting admin (or, without links, nobody). */
function SuccessorField() {
  return (
    <>
      <label for="successor-email" class="block text-sm font-medium mb-1">
        Successor (optional)
      </label>
      <input
        id="successor-email"
        name="successor"
        type="email"
        class="input input-sm w-full"
        placeholder="colleague@example.com"
        autocomplete="off"
      />
    </>
  );
}

/**
 * The delete dialog (docs/auth.md#deleting-a-user): with links they are primary owner of, hand
 * them on (to a successor, optionally named) or delete them; with none but groups they manage
 * alone, an optional successor who takes those groups over.
 */
export function ConfirmDeleteUser({
  user,
  primaryLinks,
  groupsAlone,
  asModal,
}: {
  user: User;
  primaryLinks: number;
  groupsAlone: number;
  asModal: boolean;
}) {
  const action = `/admin/users/${user.id}`;
  const body = (
    <form
      method="post"
      action={action}
      hx-delete={asModal ? action : undefined}
      hx-target={asModal ? `#user-${user.id}` : undefined}
      hx-swap={asModal ? 'outerHTML' : undefined}
      data-close-modal-on-success
      class="space-y-4"
    >
      <input type="hidden" name="_method" value="DELETE" />
      <p class="font-medium break-words">{`${user.displayName} (${user.email})`}</p>
      <p>{`This user owns ${plural(primaryLinks, 'link')}.`}</p>
      {primaryLinks > 0 && (
        <fieldset class="space-y-2">
          <legend class="text-sm font-medium mb-1">What happens to their links?</legend>
          <label class="flex items-start gap-2 cursor-pointer">
            <input type="radio" name="link_action" value="reassign" class="radio radio-sm" checked />
            <span>
              Hand their links on
              <span class="block text-sm text-base-content/70">
                A link goes to its longest-standing co-owner; one nobody else owns goes to the successor, or to you when none is named. The
                successor also takes over the groups they managed alone.
              </span>
            </span>
          </label>
          <div class="pl-6">
            <SuccessorField />
          </div>
          <label class="flex items-center gap-2 cursor-pointer">
            <input type="radio" name="link_action" value="delete" class="radio radio-sm" />
            <span>Delete all links</span>
          </label>
        </fieldset>
      )}
      {primaryLinks === 0 && groupsAlone > 0 && (
        <div class="space-y-2">
          <p>{`They are the only manager of ${plural(groupsAlone, 'group')}. A successor named here takes ${groupsAlone === 1 ? 'it' : 'them'} over; without one, only admins manage ${groupsAlone === 1 ? 'it' : 'them'}.`}</p>
          <SuccessorField />
        </div>
      )}
      <p class="text-sm">This action cannot be undone.</p>
      <div class="modal-action">
        {asModal ? (
          <button type="button" class="btn btn-ghost" data-modal-close autofocus>
            Cancel
          </button>
        ) : (
          <a class="btn btn-ghost" href="/admin/users">
            Cancel
          </a>
        )}
        <button type="submit" class="btn btn-error">
          <Spinner />
          Delete User
        </button>
      </div>
    </form>
  );
  return asModal ? <Modal title="Delete user?">{body}</Modal> : <Panel title="Delete user?">{body}</Panel>;
}
