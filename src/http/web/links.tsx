import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { requestActor } from '../shared/actor.js';
import { requestUser } from '../../auth/currentUser.js';
import { requireUser } from './guards.js';
import type { LinkCaps } from '../../domain/caps.js';
import { AppError, isAppError } from '../../domain/errors.js';
import { Unreadable } from '../../domain/linkInput.js';
import { slugAdvice } from '../../domain/slug.js';
import { splitAliasList } from '../../domain/aliases.js';
import { splitTagList } from '../../domain/tags.js';
import type { Link } from '../../store/types.js';
import { DAY_MS } from '../../domain/timeseries.js';
import { datetimeLocalValue, formatDate } from '../../views/format.js';
import { LinkDetail, type LinkDetailProps } from '../../views/pages/linkDetail.js';
import { EMPTY_LINK_FORM, LinkForm, type FormError, type LinkFormValues } from '../../views/partials/linkForm.js';
import { LinkRow, RENEW_FROM, type RenewFrom } from '../../views/partials/linkTable.js';
import { RENEW_DAYS } from '../../views/partials/renewChoices.js';
import { renderFragment } from '../../views/render.js';
import { linkDetailProps, qrCode, sendLinkDetail } from './linkDetail.js';
import { webRoute } from './methodOverride.js';
import { firstNulField, hasNul, nulMessage, visibleNul } from '../../domain/nul.js';
import { addTrigger, isHtmx, pageContext, sendHtml, toastHeader } from './render.js';
import {
  checkbox,
  field,
  linkFor,
  linkRows,
  param,
  parseExpiresInput,
  query,
  seeOther,
  sendFragment,
  tableEnv,
  textError,
  wantsFragment,
  sendWithToast,
  shortName,
  type WebDeps,
} from './support.js';
import { requestOrigin, shortKeyword } from '../shared/requestAddress.js';
import { ConfirmDelete } from '../../views/partials/confirmDelete.js';
import { OwnersSection, SharesPanel, type MemberNotice } from '../../views/partials/linkMembers.js';
import { LinkFormModal, LinkFormPage } from '../../views/pages/linkForm.js';
import { SlugCheck } from '../../views/partials/slugCheck.js';

/**
 * Link pages and fragments (docs/web-ui.md#link-forms, docs/web-ui.md#link-detail-page, docs/web-ui.md#confirm-delete-dialogs, docs/lifecycle.md#archive, docs/lifecycle.md#renewal): the
 * create/edit forms (modal or page), the live slug check, the detail page
 * with its QR code, co-owners and shares, archive/unarchive/renew and delete.
 * Every route loads the link, then asks LinkCaps; nothing here decides access.
 */

function formValues(req: FastifyRequest): LinkFormValues {
  return {
    slug: field(req, 'slug').trim(),
    url: field(req, 'url'),
    title: field(req, 'title'),
    description: field(req, 'description'),
    visibility: field(req, 'visibility'),
    expiresAt: field(req, 'expires_at'),
    healthChecksDisabled: checkbox(req, 'health_checks_disabled'),
    tags: field(req, 'tags'),
    aliases: field(req, 'aliases'),
    forwardPathAndQuery: checkbox(req, 'forward_path_and_query'),
  };
}

/** A NUL never reaches the store (PostgreSQL refuses it): named beside its field, in form order. */
function nulError(v: LinkFormValues, create: boolean): FormError | null {
  const name = firstNulField([
    ['slug', create ? v.slug : ''],
    ['url', v.url],
    ['title', v.title],
    ['description', v.description],
    ['tags', v.tags],
    ['aliases', v.aliases],
    ['visibility', v.visibility],
    ['expires_at', v.expiresAt],
  ]);
  return name === null ? null : { field: name, message: nulMessage(name) };
}

/** The form's fields as the links layer takes them; a date it cannot read is reported in the expiry's place. */
function draftOf(v: LinkFormValues) {
  const parsed = parseExpiresInput(v.expiresAt);
  return {
    url: v.url,
    title: v.title,
    description: v.description,
    visibility: v.visibility,
    tags: splitTagList(v.tags),
    aliases: splitAliasList(v.aliases),
    expiresAt: parsed.ok ? parsed.value : new Unreadable(new AppError('BAD_REQUEST', parsed.message, 'expires_at')),
    healthChecksDisabled: v.healthChecksDisabled,
    forwardPathAndQuery: v.forwardPathAndQuery,
  };
}

/**
 * A refused save as the form shows it: the rule's message beside its field; a slug's in plain
 * words with the slug meant, or the link that holds it (docs/web-ui.md#link-forms).
 */
function formError(e: unknown, fallback: string, slug: string, shortKeyword: string): FormError | null {
  if (!isAppError(e)) return null;
  if (e.code === 'SLUG_CONFLICT')
    return { field: 'slug', message: `${shortKeyword}/${slug} is taken. Choose another name.`, open: `/${slug}` };
  if (e.code === 'ALIAS_CONFLICT') return { field: 'aliases', message: `${e.message}. Choose a different one.` };
  if (e.field === 'slug') {
    const advice = slugAdvice(slug) ?? { message: e.message, suggestion: null };
    return { field: 'slug', message: advice.message, suggestion: advice.suggestion };
  }
  if (e.status === 400) return { field: e.field ?? null, message: e.message };
  return { field: null, message: fallback };
}

export function registerLinkRoutes(app: FastifyInstance, deps: WebDeps): void {
  const { store, config, links } = deps;
  const guard = { preHandler: requireUser(deps) };
  // Routes whose handler names a NUL character beside the field it is in (http/web/nulGuard.tsx).
  const formGuard = { ...guard, config: { handlesNul: true } };

  const renderForm = async (
    req: FastifyRequest,
    reply: FastifyReply,
    props: { mode: 'create' | 'edit'; values: LinkFormValues; linkId?: string; error?: FormError | null },
    status = 200,
  ) => {
    const ctx = await pageContext(deps, req);
    const values = Object.fromEntries(
      Object.entries(props.values).map(([k, v]) => [k, typeof v === 'string' ? visibleNul(v) : v]),
    ) as unknown as LinkFormValues;
    const common = { ...props, values, shortKeyword: ctx.shortKeyword };
    if (wantsFragment(req)) {
      // A failed HTMX save swaps the form in place inside the open modal;
      // HTMX only swaps 2xx responses, so errors answer 200 here.
      if (req.method !== 'GET') return sendFragment(reply, renderFragment(<LinkForm {...common} asModal />));
      return sendHtml(req, reply, ctx, '', <LinkFormModal {...common} />);
    }
    const title = props.mode === 'create' ? 'New link' : `Edit ${props.values.slug}`;
    return sendHtml(req, reply, ctx, title, <LinkFormPage {...common} />, status);
  };

  const detailProps = (req: FastifyRequest, link: Link, caps: LinkCaps, extra: Partial<LinkDetailProps> = {}) =>
    linkDetailProps(deps, req, link, caps, extra);
  const sendDetail = (req: FastifyRequest, reply: FastifyReply, props: LinkDetailProps, status = 200) =>
    sendLinkDetail(deps, req, reply, props, status);

  // --- live slug check and the forms ---------------------------------------

  app.get('/dashboard/links/validate-slug', guard, async (req, reply) => {
    const slug = query(req, 'slug').trim();
    if (slug === '') return sendFragment(reply, '');
    const advice = slugAdvice(slug);
    if (advice)
      return sendFragment(reply, renderFragment(<SlugCheck state="error" message={advice.message} suggestion={advice.suggestion} />));
    if (await store.links.slugTaken(slug)) {
      return sendFragment(reply, renderFragment(<SlugCheck state="taken" slug={slug} shortKeyword={shortKeyword(config, req)} />));
    }
    return sendFragment(reply, renderFragment(<SlugCheck state="available" />));
  });

  app.get('/dashboard/links/new', guard, async (req, reply) =>
    renderForm(req, reply, { mode: 'create', values: { ...EMPTY_LINK_FORM, slug: query(req, 'slug').trim() } }),
  );

  app.post('/dashboard/links', formGuard, async (req, reply) => {
    const values = formValues(req);
    const nul = nulError(values, true);
    if (nul) return renderForm(req, reply, { mode: 'create', values, error: nul }, 400);
    let created;
    try {
      created = await links.create(requestActor(req), { slug: values.slug, ...draftOf(values) });
    } catch (e) {
      const error = formError(e, 'Could not create the link. Please try again.', values.slug, shortKeyword(config, req));
      if (!error) req.log.error({ err: e }, 'creating a link from the web form failed');
      const shown = error ?? { field: null, message: 'Could not create the link. Please try again.' };
      return renderForm(req, reply, { mode: 'create', values, error: shown }, isAppError(e) ? e.status : 500);
    }
    const message = `Created ${shortName(deps, req, created.slug)}.`;
    if (wantsFragment(req)) {
      // Nothing to swap: the modal closes, #link-list refreshes itself on the event and marks
      // the new row, and the toast offers to copy the short link (docs/web-ui.md#feedback).
      addTrigger(reply, 'linkCreated', { id: created.id });
      toastHeader(reply, { level: 'success', message, copy: `${requestOrigin(config, req)}/${created.slug}` });
      return reply
        .code(200)
        .header('hx-reswap', 'none')
        .header('cache-control', 'private, no-store')
        .type('text/html; charset=utf-8')
        .send('');
    }
    return seeOther(reply, '/dashboard', message);
  });

  // --- detail ----------------------------------------------------------------

  app.get('/dashboard/links/:id', guard, async (req, reply) => {
    const got = await linkFor(deps, req, reply, 'canView');
    if (!got) return reply;
    return sendDetail(req, reply, await detailProps(req, got.link, got.caps));
  });

  app.get('/dashboard/links/:id/qr.svg', guard, async (req, reply) => {
    const got = await linkFor(deps, req, reply, 'canView');
    if (!got) return reply;
    const svg = await qrCode(`${requestOrigin(config, req)}/${got.link.slug}`);
    return reply
      .type('image/svg+xml; charset=utf-8')
      .header('content-disposition', `attachment; filename="${got.link.slug}-qr.svg"`)
      .header('cache-control', 'private, no-store')
      .send(svg);
  });

  app.get('/dashboard/links/:id/edit', guard, async (req, reply) => {
    const got = await linkFor(deps, req, reply, 'canEdit');
    if (!got) return reply;
    const view = (await store.links.view(got.link.id))!;
    const values: LinkFormValues = {
      slug: view.slug,
      url: view.url,
      title: view.title,
      description: view.description,
      visibility: view.visibility,
      expiresAt: datetimeLocalValue(view.expiresAt),
      healthChecksDisabled: view.healthChecksDisabled,
      tags: view.tags.map((t) => t.name).join(', '),
      aliases: view.aliases.join(', '),
      forwardPathAndQuery: view.forwardPathAndQuery,
    };
    return renderForm(req, reply, { mode: 'edit', values, linkId: view.id });
  });

  webRoute(app, 'PUT', '/dashboard/links/:id', formGuard, async (req, reply) => {
    const got = await linkFor(deps, req, reply, 'canEdit');
    if (!got) return reply;
    const { link } = got;
    // The slug is immutable: whatever the form sends for it is ignored.
    const values = { ...formValues(req), slug: link.slug };
    const nul = nulError(values, false);
    if (nul) return renderForm(req, reply, { mode: 'edit', values, linkId: link.id, error: nul }, 400);
    try {
      // One transaction: the fields and the tag set are saved together or not at all.
      await links.update(got.actor, got, draftOf(values));
    } catch (e) {
      const error = formError(e, 'Update failed.', link.slug, shortKeyword(config, req));
      if (!error) req.log.error({ err: e }, 'updating a link from the web form failed');
      const shown = error ?? { field: null, message: 'Update failed.' };
      return renderForm(req, reply, { mode: 'edit', values, linkId: link.id, error: shown }, isAppError(e) ? e.status : 500);
    }
    const message = `Saved ${shortName(deps, req, link.slug)}.`;
    if (wantsFragment(req)) {
      addTrigger(reply, 'linkUpdated', { id: link.id });
      toastHeader(reply, { level: 'success', message });
      return reply
        .code(200)
        .header('hx-reswap', 'none')
        .header('cache-control', 'private, no-store')
        .type('text/html; charset=utf-8')
        .send('');
    }
    return seeOther(reply, `/dashboard/links/${link.id}`, message);
  });

  app.get('/dashboard/links/:id/confirm-delete', guard, async (req, reply) => {
    const got = await linkFor(deps, req, reply, 'canDelete');
    if (!got) return reply;
    const ctx = await pageContext(deps, req);
    const id = got.link.id;
    return sendHtml(
      req,
      reply,
      ctx,
      `Delete ${got.link.slug}`,
      <ConfirmDelete
        name={got.link.slug}
        action={`/dashboard/links/${id}`}
        target={`#link-${id}`}
        asModal={isHtmx(req)}
        cancelHref={`/dashboard/links/${id}`}
      />,
    );
  });

  webRoute(app, 'DELETE', '/dashboard/links/:id', guard, async (req, reply) => {
    const got = await linkFor(deps, req, reply, 'canDelete');
    if (!got) return reply;
    await links.delete(got.actor, got);
    const message = `Deleted ${shortName(deps, req, got.link.slug)}.`;
    // Sent by the page script once Undo is no longer offered, which removes the row itself; only the toast arrives (docs/web-ui.md#deleting-with-undo).
    if (wantsFragment(req)) return sendWithToast(reply, null, message);
    return seeOther(reply, '/dashboard', message);
  });

  // --- lifecycle (docs/lifecycle.md#archive, docs/lifecycle.md#renewal) ----------------------------------------

  for (const action of ['archive', 'unarchive'] as const) {
    app.post(`/dashboard/links/:id/${action}`, guard, async (req, reply) => {
      const got = await linkFor(deps, req, reply, 'canEdit');
      if (!got) return reply;
      await (action === 'archive' ? links.archive(got.actor, got) : links.unarchive(got.actor, got));
      const name = shortName(deps, req, got.link.slug);
      const message = action === 'archive' ? `Archived ${name}. It no longer redirects.` : `Unarchived ${name}. It redirects again.`;
      if (!wantsFragment(req)) return seeOther(reply, `/dashboard/links/${got.link.id}`, message);
      const props = await detailProps(req, got.link, got.caps);
      return sendWithToast(reply, <LinkDetail {...props} />, message);
    });
  }

  app.post('/dashboard/links/:id/renew', guard, async (req, reply) => {
    const got = await linkFor(deps, req, reply, 'canEdit');
    if (!got) return reply;
    const days = RENEW_DAYS.find((d) => String(d) === field(req, 'days')) ?? null;
    // Whole seconds, as every stored expiry (docs/lifecycle.md#expiry).
    const until = days === null ? null : Math.floor((store.now() + days * DAY_MS) / 1000) * 1000;
    const view = await links.renew(got.actor, got, until);
    // The answer re-renders the place the button sat in (docs/lifecycle.md#renewal).
    const from = renewFrom(field(req, 'from'), got.user.role === 'admin');
    const name = shortName(deps, req, view.slug);
    const message =
      until === null ? `Renewed ${name}. It no longer expires.` : `Renewed ${name} for ${days} days, until ${formatDate(until)}.`;
    if (!wantsFragment(req)) {
      return seeOther(reply, from === 'detail' ? `/dashboard/links/${view.id}` : from === 'admin' ? '/admin/links' : '/dashboard', message);
    }
    if (from === 'detail') {
      const props = await detailProps(req, got.link, got.caps);
      return sendWithToast(reply, <LinkDetail {...props} />, message);
    }
    const ctx = await pageContext(deps, req);
    const [row] = await linkRows(store, [view], requestUser(req));
    return sendWithToast(reply, <LinkRow row={row!} variant={from} env={tableEnv(deps, req, ctx)} />, message);
  });

  // --- co-owners and shares (docs/web-ui.md#link-detail-page, docs/web-ui.md#feedback) -------------

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
    return sendDetail(req, reply, await detailProps(req, link, caps, extra), out.status ?? 200);
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
    return sendDetail(req, reply, await detailProps(req, link, caps, extra), out.status ?? 200);
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

/**
 * The place a Renew form names; anything else is a dashboard row. Admin rows (with the admin
 * table's columns and edit links) are only ever rendered for admins.
 */
function renewFrom(raw: string, isAdmin: boolean): RenewFrom {
  const from = RENEW_FROM.find((f) => f === raw) ?? 'dashboard';
  return from === 'admin' && !isAdmin ? 'dashboard' : from;
}
