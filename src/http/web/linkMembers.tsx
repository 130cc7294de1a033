import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { LinkCaps } from '../../domain/caps.js';
import { isAppError } from '../../domain/errors.js';
import { hasNul, nulMessage, visibleNul } from '../../domain/nul.js';
import type { Link } from '../../store/types.js';
import { OwnersSection, SharesPanel, type MemberNotice } from '../../views/partials/linkMembers.js';
import { renderFragment } from '../../views/render.js';
import { requireUser } from './guards.js';
import { linkDetailProps, sendLinkDetail } from './linkDetail.js';
import { webRoute } from './methodOverride.js';
import { field, linkFor, param, seeOther, sendFragment, sendWithToast, textError, wantsFragment, type WebDeps } from './support.js';

/**
 * A link's co-owners and shares (docs/web-ui.md#link-detail-page, docs/web-ui.md#feedback):
 * adding a person by email and removing one, answered by the panel alone for HTMX or by the
 * link page with the outcome beside the form.
 */
export function registerLinkMemberRoutes(app: FastifyInstance, deps: WebDeps): void {
  const { store, links } = deps;
  const guard = { preHandler: requireUser(deps) };
  // Routes whose handler names a NUL character beside the field it is in (http/web/nulGuard.tsx).
  const formGuard = { ...guard, config: { handlesNul: true } };

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
      const owners = await store.owners.list(link.id);
      const section = (
        <OwnersSection
          linkId={link.id}
          owners={owners}
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
    if (hasNul(email)) return ownersReply(req, reply, got.link, got.caps, { error: `${nulMessage('Email')}.`, status: 400 });
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
      const shares = await store.shares.list(link.id);
      const panel = <SharesPanel linkId={link.id} shares={shares} error={error} notice={out.notice} email={error ? typedEmail(req) : ''} />;
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
    if (hasNul(email)) return sharesReply(req, reply, got.link, got.caps, { error: `${nulMessage('Email')}.`, status: 400 });
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
