import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { LinkCaps } from '../../domain/caps.js';
import { isAppError } from '../../domain/errors.js';
import { groupLookupName } from '../../domain/groups.js';
import { hasNul, nulMessage, visibleNul } from '../../domain/nul.js';
import type { GrantedLink } from '../../links/index.js';
import type { Holding } from '../../store/holdings.js';
import type { Link } from '../../store/types.js';
import {
  groupKey,
  MemberSuggestions,
  OwnersSection,
  SharesPanel,
  type MemberNotice,
  type MemberSuggestion,
} from '../../views/partials/linkMembers.js';
import { renderFragment } from '../../views/render.js';
import { requireUser } from './guards.js';
import { linkDetailProps, sendLinkDetail } from './linkDetail.js';
import { webRoute } from './methodOverride.js';
import { field, linkFor, param, query, seeOther, sendFragment, sendWithToast, textError, wantsFragment, type WebDeps } from './support.js';

/** Suggestions of each kind the picker lists at most. */
const SUGGESTIONS_PER_KIND = 5;

/**
 * A link's co-owners and shares (docs/web-ui.md#link-detail-page, docs/web-ui.md#feedback):
 * adding a person by email or a group by name and removing either, answered by the panel
 * alone for HTMX or by the link page with the outcome beside the form; and the picker's
 * suggestions of people and groups as one types.
 */
export function registerLinkMemberRoutes(app: FastifyInstance, deps: WebDeps): void {
  const { store, links } = deps;
  const guard = { preHandler: requireUser(deps) };
  // Routes whose handler names a NUL character beside the field it is in (http/web/nulGuard.tsx).
  const formGuard = { ...guard, config: { handlesNul: true } };
  const groupsOf = async (linkId: string, holding: Holding) => (await store.groups.ofLinks(holding, [linkId])).get(linkId) ?? [];

  /**
   * The group an add names: the picker's `group` field, else a typed name without `@` (the
   * form without JavaScript); null when the add names a person.
   */
  const namedGroup = (req: FastifyRequest): string | null => {
    const picked = field(req, 'group').trim();
    if (picked !== '') return picked;
    const typed = field(req, 'email').trim();
    return typed !== '' && !typed.includes('@') ? typed : null;
  };

  /** Adds the named group as owner or share recipient; what to answer, as for a person. */
  const addGroupOutcome = async (got: GrantedLink, holding: Holding, name: string): Promise<MemberOutcome> => {
    try {
      const added = await links.addGroup(got.actor, got, holding, name);
      return { toast: holding === 'owner' ? `The group ${added.name} is now a co-owner.` : `Shared with the group ${added.name}.` };
    } catch (e) {
      const duplicate = isAppError(e) && (e.code === 'DUPLICATE_OWNER' || e.code === 'DUPLICATE_SHARE');
      if (duplicate) {
        const group = (await groupsOf(got.link.id, holding)).find((g) => g.name === groupLookupName(name));
        if (group) {
          const message = holding === 'owner' ? `${group.name} is already an owner.` : `${group.name} already has access.`;
          return { notice: { userId: groupKey(group.groupId), message } };
        }
      }
      if (isAppError(e) && e.code === 'NOT_FOUND' && e.field === 'group') {
        return {
          error: `No group is named ${visibleNul(name.trim())}. Enter a person's email or pick a group from the suggestions.`,
          status: 400,
        };
      }
      throw e;
    }
  };

  /**
   * What adding or removing a person leads to: a toast for a change, a calm note beside a
   * person who already had that role, or the reason beside the email field.
   */
  interface MemberOutcome {
    toast?: string;
    notice?: MemberNotice;
    error?: string;
    status?: number;
  }

  const ownersReply = async (req: FastifyRequest, reply: FastifyReply, link: Link, caps: LinkCaps, out: MemberOutcome) => {
    const error = out.error ?? null;
    if (wantsFragment(req)) {
      const [owners, groups] = await Promise.all([store.owners.list(link.id), groupsOf(link.id, 'owner')]);
      const section = (
        <OwnersSection
          linkId={link.id}
          owners={owners}
          groups={groups}
          canManage={caps.canManageShares}
          error={error}
          notice={out.notice}
          email={error ? typedEmail(req) : ''}
        />
      );
      return out.toast ? sendWithToast(reply, section, out.toast) : sendFragment(reply, renderFragment(section));
    }
    if (!error && !out.notice) return seeOther(reply, `/dashboard/links/${link.id}`, out.toast);
    const extra = { ownersError: error, ownersNotice: out.notice, ownersEmail: error ? typedEmail(req) : '' };
    return sendLinkDetail(deps, req, reply, await linkDetailProps(deps, req, link, caps, extra), out.status ?? 200);
  };

  app.post('/dashboard/links/:id/owners', formGuard, async (req, reply) => {
    const got = await linkFor(deps, req, reply, 'canManageShares');
    if (!got) return reply;
    const email = field(req, 'email');
    if (hasNul(email) || hasNul(field(req, 'group'))) {
      return ownersReply(req, reply, got.link, got.caps, { error: `${nulMessage('Email')}.`, status: 400 });
    }
    const group = namedGroup(req);
    if (group !== null) return ownersReply(req, reply, got.link, got.caps, await addGroupOutcome(got, 'owner', group));
    let user;
    try {
      user = await links.addOwner(got.actor, got, email);
    } catch (e) {
      if (isAppError(e) && e.code === 'DUPLICATE_OWNER') {
        const who = await links.userByEmail(email);
        return ownersReply(req, reply, got.link, got.caps, {
          notice: { userId: who.id, message: `${personName(who)} is already an owner.` },
        });
      }
      const message = memberError(e);
      if (!message) req.log.error({ err: e }, 'adding a co-owner failed');
      return ownersReply(req, reply, got.link, got.caps, { error: message ?? 'Could not add co-owner.', status: message ? 400 : 500 });
    }
    return ownersReply(req, reply, got.link, got.caps, { toast: `${personName(user)} is now a co-owner.` });
  });

  webRoute(app, 'DELETE', '/dashboard/links/:id/owners/:uid', guard, async (req, reply) => {
    const got = await linkFor(deps, req, reply, 'canManageShares');
    if (!got) return reply;
    const removed = await store.users.findById(param(req, 'uid')).catch(() => null);
    try {
      await links.removeOwner(got.actor, got, param(req, 'uid'));
    } catch (e) {
      if (isAppError(e) && e.code === 'PRIMARY_OWNER_PROTECTED') return textError(reply, 400, 'Cannot remove primary owner');
      if (isAppError(e) && e.code === 'NOT_FOUND') return textError(reply, 404, 'That user is not an owner of this link.');
      throw e;
    }
    const toast = `${removed ? personName(removed) : 'They'} ${removed ? 'is' : 'are'} no longer a co-owner.`;
    return ownersReply(req, reply, got.link, got.caps, { toast });
  });

  const sharesReply = async (req: FastifyRequest, reply: FastifyReply, link: Link, caps: LinkCaps, out: MemberOutcome) => {
    const error = out.error ?? null;
    if (wantsFragment(req)) {
      const [shares, groups] = await Promise.all([store.shares.list(link.id), groupsOf(link.id, 'share')]);
      const panel = (
        <SharesPanel
          linkId={link.id}
          shares={shares}
          groups={groups}
          error={error}
          notice={out.notice}
          email={error ? typedEmail(req) : ''}
        />
      );
      return out.toast ? sendWithToast(reply, panel, out.toast) : sendFragment(reply, renderFragment(panel));
    }
    if (!error && !out.notice) return seeOther(reply, `/dashboard/links/${link.id}`, out.toast);
    const extra = { sharesError: error, sharesNotice: out.notice, sharesEmail: error ? typedEmail(req) : '' };
    return sendLinkDetail(deps, req, reply, await linkDetailProps(deps, req, link, caps, extra), out.status ?? 200);
  };

  app.post('/dashboard/links/:id/shares', formGuard, async (req, reply) => {
    const got = await linkFor(deps, req, reply, 'canManageShares');
    if (!got) return reply;
    const email = field(req, 'email');
    if (hasNul(email) || hasNul(field(req, 'group'))) {
      return sharesReply(req, reply, got.link, got.caps, { error: `${nulMessage('Email')}.`, status: 400 });
    }
    const group = namedGroup(req);
    if (group !== null) return sharesReply(req, reply, got.link, got.caps, await addGroupOutcome(got, 'share', group));
    let share;
    try {
      // The acting user is recorded as the grantor.
      share = await links.addShare(got.actor, got, email);
    } catch (e) {
      if (isAppError(e) && e.code === 'DUPLICATE_SHARE') {
        const who = await links.userByEmail(email);
        return sharesReply(req, reply, got.link, got.caps, {
          notice: { userId: who.id, message: `${personName(who)} already has access.` },
        });
      }
      const message = memberError(e);
      if (!message) req.log.error({ err: e }, 'adding a share failed');
      return sharesReply(req, reply, got.link, got.caps, {
        error: message ?? 'Could not share the link. Please try again.',
        status: message ? 400 : 500,
      });
    }
    return sharesReply(req, reply, got.link, got.caps, { toast: `Shared with ${personName(share)}.` });
  });

  webRoute(app, 'DELETE', '/dashboard/links/:id/shares/:uid', guard, async (req, reply) => {
    const got = await linkFor(deps, req, reply, 'canManageShares');
    if (!got) return reply;
    const removed = (await store.shares.list(got.link.id)).find((x) => x.userId === param(req, 'uid'));
    try {
      await links.removeShare(got.actor, got, param(req, 'uid'));
    } catch (e) {
      if (isAppError(e) && e.code === 'NOT_FOUND') return textError(reply, 404, 'That user has no access to remove.');
      throw e;
    }
    const toast = removed ? `${personName(removed)} no longer has access.` : 'Access removed.';
    return sharesReply(req, reply, got.link, got.caps, { toast });
  });

  // A group stops owning the link, or having it shared, by the group's id (docs/groups.md#links-of-a-group).
  for (const holding of ['owner', 'share'] as const) {
    const path = holding === 'owner' ? 'owners' : 'shares';
    const respond = holding === 'owner' ? ownersReply : sharesReply;
    webRoute(app, 'DELETE', `/dashboard/links/:id/${path}/groups/:gid`, guard, async (req, reply) => {
      const got = await linkFor(deps, req, reply, 'canManageShares');
      if (!got) return reply;
      const removed = (await groupsOf(got.link.id, holding)).find((g) => g.groupId === param(req, 'gid'));
      if (!removed)
        return textError(
          reply,
          404,
          holding === 'owner' ? 'That group is not an owner of this link.' : 'That group has no access to remove.',
        );
      try {
        await links.removeGroup(got.actor, got, holding, removed.groupId);
      } catch (e) {
        if (isAppError(e) && e.code === 'NOT_FOUND') return textError(reply, 404, 'That group was removed already.');
        throw e;
      }
      const toast =
        holding === 'owner' ? `The group ${removed.name} is no longer a co-owner.` : `The group ${removed.name} no longer has access.`;
      return respond(req, reply, got.link, got.caps, { toast });
    });

    /**
     * The picker's suggestions for the text typed so far (`email`, the field's own name): groups
     * by name and people in some group by name or email, which every signed-in user may already
     * read on the groups pages and `GET /api/v1/groups`, plus the one person whose email is typed
     * in full, which the add form itself would find. Nobody else is suggested.
     */
    app.get(`/dashboard/links/:id/${path}/suggest`, guard, async (req, reply) => {
      const got = await linkFor(deps, req, reply, 'canManageShares');
      if (!got) return reply;
      const typed = query(req, 'email').trim();
      if ([...typed].length < 2 || hasNul(typed)) return sendFragment(reply, '');
      const [groups, people, exact] = await Promise.all([
        store.groups.nameContains(typed, SUGGESTIONS_PER_KIND),
        store.groups.membersMatching(typed, SUGGESTIONS_PER_KIND),
        typed.includes('@') ? store.users.findByEmail(typed) : Promise.resolve(null),
      ]);
      const suggestions: MemberSuggestion[] = [
        ...groups.map((g): MemberSuggestion => ({ kind: 'group', name: g.name, description: g.description })),
        ...people.map((p): MemberSuggestion => ({ kind: 'person', email: p.email, displayName: p.displayName })),
      ];
      if (exact && !people.some((p) => p.id === exact.id))
        suggestions.push({ kind: 'person', email: exact.email, displayName: exact.displayName });
      const listId = holding === 'owner' ? 'owner-email-suggestions' : 'share-email-suggestions';
      return sendFragment(reply, renderFragment(<MemberSuggestions listId={listId} suggestions={suggestions} typed={typed} />));
    });
  }
}

/** A person as messages name them: their display name, else their email. */
function personName(p: { displayName: string; email: string }): string {
  return p.displayName || p.email;
}

/** What the owners and shares panels say beside the email field when adding someone is refused; null for an unexpected failure. */
function memberError(e: unknown): string | null {
  if (!isAppError(e)) return null;
  if (e.code === 'BAD_REQUEST' && e.field === 'email') return 'Enter an email address.';
  if (e.code === 'NOT_FOUND' && e.field === 'email') return 'Nobody with that email has signed in yet. They need to sign in once first.';
  return null;
}

/** The address an add-by-email form sent, as it can be shown again. */
function typedEmail(req: FastifyRequest): string {
  return visibleNul(field(req, 'email'));
}
