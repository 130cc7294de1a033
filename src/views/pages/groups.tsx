import type { GroupRole } from '../../domain/groups.js';
import type { Group, GroupMember } from '../../store/groups.js';
import { plural } from '../format.js';
import { Icon } from '../partials/icons.js';
import { Alert, Avatar, EmptyState, FieldError, Modal, PageHeader, Panel, Spinner } from '../partials/ui.js';

/**
 * The groups pages (docs/web-ui.md#groups, docs/groups.md): every group with the viewer's own
 * first, the form that creates one, and a page per group with its members, where managers and
 * admins change the group and anyone may leave.
 */

/** The name's rule in plain words, beside the field and in its refusal. */
export const GROUP_NAME_RULE =
  'A group name uses lowercase letters, digits and hyphens, like platform-team: no spaces, and no hyphen at the start or end.';

export interface GroupListItem extends Group {
  memberCount: number;
  /** The viewer's role; null when they are not a member. */
  role: GroupRole | null;
}

export interface GroupFormState {
  name: string;
  description: string;
  nameError: string | null;
  descriptionError: string | null;
}

export const EMPTY_GROUP_FORM: GroupFormState = { name: '', description: '', nameError: null, descriptionError: null };

export interface GroupsPageProps {
  mine: readonly GroupListItem[];
  all: readonly GroupListItem[];
  /** The last name of this page of all groups when more follow. */
  nextAfter: string | null;
  /** This page of all groups starts after a name (not the first page). */
  paged: boolean;
  form: GroupFormState;
}

/** A group's badges: the viewer's role and whether sign-in keeps its members. */
function GroupBadges({ role, synced }: { role: GroupRole | null; synced: boolean }) {
  return (
    <>
      {role && <span class={`badge badge-sm ${role === 'manager' ? 'badge-primary' : 'badge-ghost border-base-content/40'}`}>{role}</span>}
      {synced && <span class="badge badge-sm badge-info">synced</span>}
    </>
  );
}

function GroupRow({ g }: { g: GroupListItem }) {
  return (
    <li class="flex items-start gap-3 py-3 sm:items-center">
      <span class="rounded-full bg-base-200 p-2 shrink-0" aria-hidden="true">
        <Icon name="users" class="size-5" />
      </span>
      <div class="min-w-0 flex-1">
        <p class="flex flex-wrap items-center gap-x-2 gap-y-1">
          <a href={`/dashboard/groups/${g.name}`} class="link link-hover font-medium wrap-anywhere">
            {g.name}
          </a>
          <GroupBadges role={g.role} synced={g.synced} />
          {/* Beside the name on a phone, where a column of its own would squeeze the name. */}
          <span class="text-sm text-base-content/70 whitespace-nowrap sm:hidden">{plural(g.memberCount, 'member')}</span>
        </p>
        {g.description && <p class="text-sm text-base-content/70 wrap-anywhere">{g.description}</p>}
      </div>
      <span class="hidden text-sm text-base-content/70 whitespace-nowrap sm:inline">{plural(g.memberCount, 'member')}</span>
    </li>
  );
}

/** The name and description fields of the create and settings forms, each refusal said beside its field. */
function GroupFields({ form, idPrefix }: { form: GroupFormState; idPrefix: string }) {
  const nameId = `${idPrefix}-name`;
  const descId = `${idPrefix}-description`;
  return (
    <>
      <div>
        <label for={nameId} class="block text-sm font-medium mb-1">
          Name
        </label>
        <input
          id={nameId}
          name="name"
          type="text"
          value={form.name}
          maxLength={128}
          autocomplete="off"
          autocapitalize="none"
          spellcheck={false}
          placeholder="platform-team"
          class={`input w-full${form.nameError ? ' input-error' : ''}`}
          aria-invalid={form.nameError ? 'true' : undefined}
          aria-describedby={`${nameId}-help${form.nameError ? ` ${nameId}-error` : ''}`}
        />
        <p id={`${nameId}-help`} class="text-sm text-base-content/70 mt-1">
          {GROUP_NAME_RULE}
        </p>
        <FieldError id={`${nameId}-error`} message={form.nameError ?? undefined} />
      </div>
      <div>
        <label for={descId} class="block text-sm font-medium mb-1">
          Description <span class="font-normal text-base-content/70">(optional)</span>
        </label>
        <textarea
          id={descId}
          name="description"
          rows={2}
          class={`textarea w-full${form.descriptionError ? ' textarea-error' : ''}`}
          aria-invalid={form.descriptionError ? 'true' : undefined}
          aria-describedby={form.descriptionError ? `${descId}-error` : undefined}
        >
          {form.description}
        </textarea>
        <FieldError id={`${descId}-error`} message={form.descriptionError ?? undefined} />
      </div>
    </>
  );
}

export function GroupsPage({ mine, all, nextAfter, paged, form }: GroupsPageProps) {
  return (
    <>
      <PageHeader
        title="Groups"
        subtitle="Named sets of people. Give a link to a group and every member holds it, for as long as they are in the group."
      />
      <div class="space-y-6">
        <section class="card bg-base-100 border border-base-300" aria-labelledby="new-group-title">
          <div class="card-body gap-3">
            <h2 id="new-group-title" class="card-title text-base">
              New group
            </h2>
            <p class="text-sm text-base-content/70">You become its first manager.</p>
            <form method="post" action="/dashboard/groups" class="space-y-3">
              <GroupFields form={form} idPrefix="group" />
              <button type="submit" class="btn btn-primary">
                <Icon name="plus" class="size-4" />
                Create group
              </button>
            </form>
          </div>
        </section>
        <section aria-labelledby="my-groups-title">
          <h2 id="my-groups-title" class="text-lg font-semibold mb-2">
            Your groups
          </h2>
          {mine.length === 0 ? (
            <p class="text-base-content/70">You are not in any group yet.</p>
          ) : (
            <ul class="divide-y divide-base-300 rounded-box border border-base-300 bg-base-100 px-4" id="my-groups">
              {mine.map((g) => (
                <GroupRow g={g} />
              ))}
            </ul>
          )}
        </section>
        <section aria-labelledby="all-groups-title">
          <h2 id="all-groups-title" class="text-lg font-semibold mb-2">
            All groups
          </h2>
          {all.length === 0 && !paged ? (
            <EmptyState icon="users" title="No groups yet">
              Create the first one above.
            </EmptyState>
          ) : (
            <ul class="divide-y divide-base-300 rounded-box border border-base-300 bg-base-100 px-4" id="all-groups">
              {all.map((g) => (
                <GroupRow g={g} />
              ))}
            </ul>
          )}
          {(paged || nextAfter) && (
            <nav class="flex flex-wrap gap-2 mt-3" aria-label="More groups">
              {paged && (
                <a class="btn btn-sm" href="/dashboard/groups">
                  First groups
                </a>
              )}
              {nextAfter && (
                <a class="btn btn-sm" href={`/dashboard/groups?after=${encodeURIComponent(nextAfter)}`}>
                  More groups
                </a>
              )}
            </nav>
          )}
        </section>
      </div>
    </>
  );
}

/** What the add-member form shows again after a refusal. */
export interface AddMemberState {
  email: string;
  role: GroupRole;
  error: string | null;
}

export const EMPTY_ADD_MEMBER: AddMemberState = { email: '', role: 'member', error: null };

export interface GroupMembersProps {
  group: Group;
  members: readonly GroupMember[];
  viewerId: string;
  /** The viewer may change the group: one of its managers, or an admin. */
  canManage: boolean;
  add: AddMemberState;
  /** A refusal of a role change or a removal, said above the list; nothing changed. */
  error?: string | null;
}

/** The members card, swapped whole by every member change. */
export function GroupMembers({ group, members, viewerId, canManage, add, error }: GroupMembersProps) {
  const base = `/dashboard/groups/${group.name}/members`;
  const editable = canManage && !group.synced;
  const isMember = members.some((m) => m.userId === viewerId);
  return (
    <section id="group-members" class="card bg-base-100 border border-base-300" aria-labelledby="members-title">
      <div class="card-body gap-3">
        <div class="flex flex-wrap items-center justify-between gap-2">
          <h2 id="members-title" class="card-title text-base">
            Members <span class="font-normal text-base-content/70">({members.length})</span>
          </h2>
          {isMember && !group.synced && (
            <form
              method="post"
              action={`${base}/${viewerId}`}
              hx-delete={`${base}/${viewerId}`}
              hx-target="#group-members"
              hx-swap="outerHTML"
            >
              <input type="hidden" name="_method" value="DELETE" />
              <button type="submit" class="btn btn-sm">
                <Spinner />
                Leave group
              </button>
            </form>
          )}
        </div>
        {group.synced && (
          <Alert level="info">
            Its members follow sign-in: whoever your sign-in provider puts in {group.name} is in it here, from their next sign-in. Nobody
            adds, removes or leaves by hand.
          </Alert>
        )}
        {error && <Alert>{error}</Alert>}
        {members.length === 0 ? (
          <p class="text-sm">Nobody is in this group.</p>
        ) : (
          <ul class="divide-y divide-base-300">
            {members.map((m) => {
              const name = m.displayName || m.email;
              return (
                <li class="flex flex-wrap items-center gap-x-3 gap-y-2 py-2" id={`member-${m.userId}`}>
                  <Avatar name={name} />
                  <div class="min-w-40 flex-1">
                    <p class="font-medium flex flex-wrap items-center gap-2">
                      <span class="wrap-anywhere">{name}</span>
                      <span class={`badge badge-sm ${m.role === 'manager' ? 'badge-primary' : 'badge-ghost border-base-content/40'}`}>
                        {m.role}
                      </span>
                      {m.userId === viewerId && <span class="badge badge-sm badge-neutral">you</span>}
                    </p>
                    <p class="text-sm text-base-content/70 wrap-anywhere">{m.email}</p>
                  </div>
                  {editable && (
                    <div class="flex flex-wrap gap-1 ml-auto">
                      <form
                        method="post"
                        action={`${base}/${m.userId}`}
                        hx-put={`${base}/${m.userId}`}
                        hx-target="#group-members"
                        hx-swap="outerHTML"
                      >
                        <input type="hidden" name="_method" value="PUT" />
                        <input type="hidden" name="role" value={m.role === 'manager' ? 'member' : 'manager'} />
                        <button
                          type="submit"
                          class="btn btn-ghost btn-sm"
                          aria-label={`Make ${name} a ${m.role === 'manager' ? 'member' : 'manager'}`}
                        >
                          {m.role === 'manager' ? 'Make member' : 'Make manager'}
                        </button>
                      </form>
                      {m.userId !== viewerId && (
                        <form
                          method="post"
                          action={`${base}/${m.userId}`}
                          hx-delete={`${base}/${m.userId}`}
                          hx-target="#group-members"
                          hx-swap="outerHTML"
                        >
                          <input type="hidden" name="_method" value="DELETE" />
                          <button type="submit" class="btn btn-ghost btn-sm" aria-label={`Remove ${name} from ${group.name}`}>
                            Remove
                          </button>
                        </form>
                      )}
                    </div>
                  )}
                </li>
              );
            })}
          </ul>
        )}
        {editable && (
          <form
            method="post"
            action={base}
            hx-post={base}
            hx-target="#group-members"
            hx-swap="outerHTML"
            class="flex flex-wrap gap-2 items-start"
          >
            <div class="flex-1 min-w-48">
              <label for="member-email" class="block text-sm font-medium mb-1">
                Add someone by email
              </label>
              <input
                id="member-email"
                name="email"
                type="email"
                value={add.error ? add.email : undefined}
                class={`input w-full${add.error ? ' input-error' : ''}`}
                placeholder="colleague@example.com"
                autocomplete="off"
                aria-invalid={add.error ? 'true' : undefined}
                aria-describedby={add.error ? 'member-email-error' : undefined}
              />
              <FieldError id="member-email-error" message={add.error ?? undefined} />
            </div>
            <div>
              <label for="member-role" class="block text-sm font-medium mb-1">
                Role
              </label>
              <select id="member-role" name="role" class="select">
                <option value="member" selected={add.role === 'member'}>
                  member
                </option>
                <option value="manager" selected={add.role === 'manager'}>
                  manager
                </option>
              </select>
            </div>
            <button type="submit" class="btn sm:mt-6">
              <Spinner />
              Add member
            </button>
          </form>
        )}
      </div>
    </section>
  );
}

export interface GroupPageProps extends GroupMembersProps {
  /** The settings form as sent back after a refusal; absent for those who may not change the group. */
  settings: GroupFormState;
}

export function GroupPage(p: GroupPageProps) {
  const { group, canManage } = p;
  return (
    <>
      <PageHeader
        back={{ href: '/dashboard/groups', label: 'Groups' }}
        title={
          <span class="inline-flex flex-wrap items-center gap-2">
            <span class="wrap-anywhere">{group.name}</span>
            {group.synced && <span class="badge badge-info">synced</span>}
          </span>
        }
        subtitle={group.description || undefined}
        actions={
          canManage && (
            <a
              href={`/dashboard/groups/${group.name}/confirm-delete`}
              hx-get={`/dashboard/groups/${group.name}/confirm-delete`}
              hx-target="#modal"
              class="btn btn-error btn-sm"
            >
              <Icon name="trash" class="size-4" />
              Delete group
            </a>
          )
        }
      />
      <div class="space-y-6">
        <GroupMembers {...p} />
        {canManage && (
          <section class="card bg-base-100 border border-base-300" aria-labelledby="settings-title">
            <div class="card-body gap-3">
              <h2 id="settings-title" class="card-title text-base">
                Name and description
              </h2>
              <form method="post" action={`/dashboard/groups/${group.name}`} class="space-y-3">
                <input type="hidden" name="_method" value="PUT" />
                <GroupFields form={p.settings} idPrefix="settings" />
                <button type="submit" class="btn">
                  Save
                </button>
              </form>
            </div>
          </section>
        )}
      </div>
    </>
  );
}

export function ConfirmDeleteGroup({ group, memberCount, asModal }: { group: Group; memberCount: number; asModal: boolean }) {
  const action = `/dashboard/groups/${group.name}`;
  const body = (
    <form method="post" action={action} hx-delete={asModal ? action : undefined} data-close-modal-on-success class="space-y-4">
      <input type="hidden" name="_method" value="DELETE" />
      <p class="break-words">
        {`${group.name} and its ${plural(memberCount, 'membership')} go. The links it owned keep their other owners; the links shared with it are no longer shared with its members.`}
      </p>
      <p class="text-sm">This cannot be undone.</p>
      <div class="modal-action">
        {asModal ? (
          <button type="button" class="btn btn-ghost" data-modal-close autofocus>
            Cancel
          </button>
        ) : (
          <a class="btn btn-ghost" href={`/dashboard/groups/${group.name}`}>
            Cancel
          </a>
        )}
        <button type="submit" class="btn btn-error">
          <Spinner />
          Delete group
        </button>
      </div>
    </form>
  );
  const title = `Delete '${group.name}'?`;
  return asModal ? <Modal title={title}>{body}</Modal> : <Panel title={title}>{body}</Panel>;
}
