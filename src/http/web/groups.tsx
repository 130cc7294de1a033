import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { requestUser } from '../../auth/currentUser.js';
import { asGroupRole, canManageGroup, groupLookupName } from '../../domain/groups.js';
import { AppError, isAppError } from '../../domain/errors.js';
import { hasNul, nulMessage, visibleNul } from '../../domain/nul.js';
import type { GroupDetails } from '../../links/index.js';
import type { User } from '../../store/types.js';
import {
  ConfirmDeleteGroup,
  EMPTY_ADD_MEMBER,
  EMPTY_GROUP_FORM,
  GROUP_NAME_RULE,
  GroupMembers,
  GroupPage,
  GroupsPage,
  type AddMemberState,
  type GroupFormState,
  type GroupListItem,
} from '../../views/pages/groups.js';
import { requestActor } from '../shared/actor.js';
import { requireUser } from './guards.js';
import { webRoute } from './methodOverride.js';
import { isHtmx, pageContext, sendHtml, setFlash } from './render.js';
import {
  field,
  forbidden,
  notFound,
  param,
  query,
  seeOther,
  sendFragment,
  sendWithToast,
  textError,
  wantsFragment,
  type WebDeps,
} from './support.js';
import { renderFragment } from '../../views/render.js';

/**
 * The groups pages (docs/web-ui.md#groups): list and create groups, a page per group with its
 * members. Every change goes through the links layer's group rules (src/links/groups.ts),
 * which decide who may do what; these routes only say the outcome in the page's words.
 */

/** Groups a page of the "All groups" list holds. */
const ALL_GROUPS_PAGE = 50;

/** A person as messages name them: their display name, else their email. */
function personName(p: { displayName: string; email: string }): string {
  return p.displayName || p.email;
}

/** A refused name or description, said beside its field; null for anything else. */
function groupFormError(e: unknown, name: string): Partial<GroupFormState> | null {
  if (!isAppError(e)) return null;
  if (e.code === 'INVALID_GROUP_NAME') return { nameError: name.trim() === '' ? 'Enter a name for the group.' : GROUP_NAME_RULE };
  if (e.code === 'GROUP_CONFLICT') return { nameError: `A group named ${name.trim()} already exists. Choose another name.` };
  if (e.code === 'INVALID_FIELD_LENGTH' || e.field === 'description')
    return { descriptionError: 'A description has at most 2000 characters.' };
  return null;
}

/** A name or description holding a NUL character, refused beside its field with what was typed kept visible. */
function nulForm(name: string, description: string): GroupFormState | null {
  if (!hasNul(name) && !hasNul(description)) return null;
  return {
    name: visibleNul(name),
    description: visibleNul(description),
    nameError: hasNul(name) ? `${nulMessage('Name')}.` : null,
    descriptionError: hasNul(description) ? `${nulMessage('Description')}.` : null,
  };
}

/** Why a member change was refused, in plain words; null for an unexpected failure. */
function memberRefusal(e: unknown, group: string): string | null {
  if (!isAppError(e)) return null;
  switch (e.code) {
    case 'LAST_MANAGER':
      return `${group} needs a manager: make someone else a manager first, then try again.`;
    case 'DUPLICATE_MEMBER':
      return `They are already in ${group}.`;
    case 'GROUP_SYNCED':
      return `The members of ${group} follow sign-in and cannot be changed here.`;
  }
  if (e.code === 'BAD_REQUEST' && e.field === 'email') return 'Enter an email address.';
  if (e.code === 'BAD_REQUEST' && e.field === 'role') return 'A role is member or manager.';
  if (e.code === 'NOT_FOUND' && e.field === 'email') return 'Nobody with that email has signed in yet. They need to sign in once first.';
  if (e.code === 'NOT_FOUND') return `They are not in ${group}.`;
  return null;
}

export function registerGroupRoutes(app: FastifyInstance, deps: WebDeps): void {
  const { store, links } = deps;
  const guard = { preHandler: requireUser(deps) };
  // Forms that say a NUL character beside its field (http/web/nulGuard.tsx).
  const formGuard = { ...guard, config: { handlesNul: true } };

  const listPage = async (req: FastifyRequest, reply: FastifyReply, form: GroupFormState, status = 200) => {
    const user = requestUser(req);
    const after = query(req, 'after').trim() || undefined;
    const [mine, page] = await Promise.all([store.groups.ofMember(user.id), store.groups.page({ after, limit: ALL_GROUPS_PAGE })]);
    const counts = await store.groups.memberCounts([...mine.map((g) => g.id), ...page.groups.map((g) => g.id)]);
    const roles = new Map(mine.map((g) => [g.id, g.role]));
    const item = (g: (typeof page.groups)[number]): GroupListItem => ({
      ...g,
      memberCount: counts.get(g.id) ?? 0,
      role: roles.get(g.id) ?? null,
    });
    const last = page.groups[page.groups.length - 1];
    const props = {
      mine: mine.map(item),
      all: page.groups.map(item),
      nextAfter: page.hasMore && last ? last.name : null,
      paged: after !== undefined,
      form,
    };
    return sendHtml(req, reply, await pageContext(deps, req, user), 'Groups', <GroupsPage {...props} />, status);
  };

  app.get('/dashboard/groups', guard, async (req, reply) => listPage(req, reply, EMPTY_GROUP_FORM));

  app.post('/dashboard/groups', formGuard, async (req, reply) => {
    const name = field(req, 'name');
    const description = field(req, 'description');
    const refusedNul = nulForm(name, description);
    if (refusedNul) return listPage(req, reply, refusedNul, 400);
    let created: GroupDetails;
    try {
      created = await links.createGroup(requestActor(req), { name: groupLookupName(name), description });
    } catch (e) {
      const refused = groupFormError(e, name);
      if (!refused) throw e;
      return listPage(req, reply, { ...EMPTY_GROUP_FORM, name, description, ...refused }, 400);
    }
    // The new group's page is where its members are added next.
    return seeOther(reply, `/dashboard/groups/${created.name}`, `Created the group ${created.name}.`);
  });

  /** The group, its members and whether the viewer may change it; null when it answered 404. */
  const loadGroup = async (req: FastifyRequest, reply: FastifyReply) => {
    let group: GroupDetails;
    try {
      group = await links.group(param(req, 'name'));
    } catch (e) {
      if (isAppError(e) && e.code === 'NOT_FOUND') {
        await notFound(deps, req, reply, 'That group does not exist.');
        return null;
      }
      throw e;
    }
    const user = requestUser(req);
    const role = group.members.find((m) => m.userId === user.id)?.role ?? null;
    return { group, user, canManage: canManageGroup({ isAdmin: user.role === 'admin' }, role) };
  };

  const groupPage = async (
    req: FastifyRequest,
    reply: FastifyReply,
    got: { group: GroupDetails; user: User; canManage: boolean },
    opts: { add?: AddMemberState; settings?: GroupFormState; error?: string | null; status?: number } = {},
  ) => {
    const { group, user, canManage } = got;
    const settings = opts.settings ?? { ...EMPTY_GROUP_FORM, name: group.name, description: group.description };
    const props = {
      group,
      members: group.members,
      viewerId: user.id,
      canManage,
      add: opts.add ?? EMPTY_ADD_MEMBER,
      error: opts.error ?? null,
      settings,
    };
    return sendHtml(req, reply, await pageContext(deps, req, user), group.name, <GroupPage {...props} />, opts.status ?? 200);
  };

  app.get('/dashboard/groups/:name', guard, async (req, reply) => {
    const got = await loadGroup(req, reply);
    if (!got) return reply;
    return groupPage(req, reply, got);
  });

  webRoute(app, 'PUT', '/dashboard/groups/:name', formGuard, async (req, reply) => {
    const got = await loadGroup(req, reply);
    if (!got) return reply;
    if (!got.canManage) return forbidden(deps, req, reply);
    const name = field(req, 'name');
    const description = field(req, 'description');
    const refusedNul = nulForm(name, description);
    if (refusedNul) return groupPage(req, reply, got, { settings: refusedNul, status: 400 });
    let updated: GroupDetails;
    try {
      updated = await links.updateGroup(requestActor(req), got.group.name, { name: groupLookupName(name), description });
    } catch (e) {
      if (isAppError(e) && e.code === 'FORBIDDEN') return forbidden(deps, req, reply);
      const refused = groupFormError(e, name);
      if (!refused) throw e;
      return groupPage(req, reply, got, { settings: { ...EMPTY_GROUP_FORM, name, description, ...refused }, status: 400 });
    }
    return seeOther(reply, `/dashboard/groups/${updated.name}`, `Saved the group ${updated.name}.`);
  });

  app.get('/dashboard/groups/:name/confirm-delete', guard, async (req, reply) => {
    const got = await loadGroup(req, reply);
    if (!got) return reply;
    if (!got.canManage) return forbidden(deps, req, reply);
    const dialog = <ConfirmDeleteGroup group={got.group} memberCount={got.group.members.length} asModal={isHtmx(req)} />;
    return sendHtml(req, reply, await pageContext(deps, req, got.user), 'Delete group', dialog);
  });

  webRoute(app, 'DELETE', '/dashboard/groups/:name', guard, async (req, reply) => {
    const got = await loadGroup(req, reply);
    if (!got) return reply;
    try {
      await links.deleteGroup(requestActor(req), got.group.name);
    } catch (e) {
      if (isAppError(e) && e.code === 'FORBIDDEN') return forbidden(deps, req, reply);
      if (isAppError(e) && e.code === 'NOT_FOUND') return notFound(deps, req, reply, 'That group does not exist.');
      throw e;
    }
    const message = `Deleted the group ${got.group.name}.`;
    // The group's page is gone: the dialog's request takes the browser to the list, which shows the message.
    if (wantsFragment(req)) {
      setFlash(reply, 'success', message);
      return reply.code(204).header('hx-redirect', '/dashboard/groups').header('cache-control', 'private, no-store').send();
    }
    return seeOther(reply, '/dashboard/groups', message);
  });

  /**
   * The answer to a member change: the members card and a toast for HTMX, the page (or a
   * `303` back to it) otherwise. A refusal changes nothing and says why.
   */
  const membersReply = async (
    req: FastifyRequest,
    reply: FastifyReply,
    name: string,
    out: { toast?: string; error?: string; status?: number },
  ) => {
    const got = await loadGroup(req, reply);
    if (!got) return reply;
    if (wantsFragment(req)) {
      if (out.error) return textError(reply, out.status ?? 409, out.error);
      const card = (
        <GroupMembers
          group={got.group}
          members={got.group.members}
          viewerId={got.user.id}
          canManage={got.canManage}
          add={EMPTY_ADD_MEMBER}
        />
      );
      return sendWithToast(reply, card, out.toast ?? '');
    }
    if (!out.error) return seeOther(reply, `/dashboard/groups/${name}`, out.toast);
    return groupPage(req, reply, got, { error: out.error, status: out.status ?? 409 });
  };

  /** A refused add, said beside the email field, which keeps what was typed (like the link page's add form). */
  const refusedAdd = async (
    req: FastifyRequest,
    reply: FastifyReply,
    got: { group: GroupDetails; user: User; canManage: boolean },
    add: AddMemberState,
  ) => {
    if (!wantsFragment(req)) return groupPage(req, reply, got, { add, status: 400 });
    const card = <GroupMembers group={got.group} members={got.group.members} viewerId={got.user.id} canManage={got.canManage} add={add} />;
    return sendFragment(reply, renderFragment(card));
  };

  app.post('/dashboard/groups/:name/members', formGuard, async (req, reply) => {
    const got = await loadGroup(req, reply);
    if (!got) return reply;
    const email = field(req, 'email');
    if (hasNul(email) || hasNul(field(req, 'role'))) {
      return refusedAdd(req, reply, got, { email: visibleNul(email), role: 'member', error: `${nulMessage('Email')}.` });
    }
    try {
      const role = asGroupRole(field(req, 'role') || 'member');
      const updated = await links.addGroupMember(requestActor(req), got.group.name, email, role);
      const added = updated.members.find((m) => m.email.toLowerCase() === email.trim().toLowerCase());
      const who = added ? personName(added) : email.trim();
      return membersReply(req, reply, got.group.name, {
        toast: `${who} is now ${role === 'manager' ? 'a manager' : 'a member'} of ${got.group.name}.`,
      });
    } catch (e) {
      if (isAppError(e) && e.code === 'FORBIDDEN') return forbidden(deps, req, reply);
      const message = memberRefusal(e, got.group.name);
      if (!message) throw e;
      // Nothing beside a field when the group has no add form (its members follow sign-in): a toast says it.
      if (isAppError(e) && e.code === 'GROUP_SYNCED') return membersReply(req, reply, got.group.name, { error: message, status: 409 });
      return refusedAdd(req, reply, got, { email, role: field(req, 'role') === 'manager' ? 'manager' : 'member', error: message });
    }
  });

  /** The member a row names, or AppError NOT_FOUND. */
  const memberOf = (group: GroupDetails, uid: string) => {
    const m = group.members.find((x) => x.userId === uid);
    if (!m) throw new AppError('NOT_FOUND', 'user is not a member of this group');
    return m;
  };

  webRoute(app, 'PUT', '/dashboard/groups/:name/members/:uid', guard, async (req, reply) => {
    const got = await loadGroup(req, reply);
    if (!got) return reply;
    const name = got.group.name;
    try {
      const member = memberOf(got.group, param(req, 'uid'));
      const role = asGroupRole(field(req, 'role'));
      await links.setGroupRole(requestActor(req), name, member.email, role);
      return membersReply(req, reply, name, {
        toast: `${personName(member)} is now ${role === 'manager' ? 'a manager' : 'a member'} of ${name}.`,
      });
    } catch (e) {
      if (isAppError(e) && e.code === 'FORBIDDEN') return forbidden(deps, req, reply);
      const message = memberRefusal(e, name);
      if (!message) throw e;
      return membersReply(req, reply, name, { error: message, status: isAppError(e) ? e.status : 409 });
    }
  });

  webRoute(app, 'DELETE', '/dashboard/groups/:name/members/:uid', guard, async (req, reply) => {
    const got = await loadGroup(req, reply);
    if (!got) return reply;
    const name = got.group.name;
    try {
      const member = memberOf(got.group, param(req, 'uid'));
      await links.removeGroupMember(requestActor(req), name, member.email);
      const toast = member.userId === got.user.id ? `You left ${name}.` : `${personName(member)} is no longer in ${name}.`;
      return membersReply(req, reply, name, { toast });
    } catch (e) {
      if (isAppError(e) && e.code === 'FORBIDDEN') return forbidden(deps, req, reply);
      const message = memberRefusal(e, name);
      if (!message) throw e;
      return membersReply(req, reply, name, { error: message, status: isAppError(e) ? e.status : 409 });
    }
  });
}
