import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { splitAliasList } from '../../domain/aliases.js';
import { AppError, isAppError } from '../../domain/errors.js';
import { Unreadable } from '../../domain/linkInput.js';
import { firstNulField, nulMessage, visibleNul } from '../../domain/nul.js';
import { slugAdvice } from '../../domain/slug.js';
import { splitTagList } from '../../domain/tags.js';
import { datetimeLocalValue } from '../../views/format.js';
import { LinkFormModal, LinkFormPage } from '../../views/pages/linkForm.js';
import { ConfirmDelete } from '../../views/partials/confirmDelete.js';
import { EMPTY_LINK_FORM, LinkForm, type FormError, type LinkFormValues } from '../../views/partials/linkForm.js';
import { SlugCheck } from '../../views/partials/slugCheck.js';
import { renderFragment } from '../../views/render.js';
import { viewVersion } from '../../links/index.js';
import { requestActor } from '../shared/actor.js';
import { requestOrigin, shortKeyword } from '../shared/requestAddress.js';
import { requireUser } from './guards.js';
import { webRoute } from './methodOverride.js';
import { addTrigger, isHtmx, pageContext, sendHtml, toastHeader } from './render.js';
import {
  checkbox,
  field,
  linkFor,
  parseExpiresInput,
  query,
  seeOther,
  sendFragment,
  sendWithToast,
  shortName,
  wantsFragment,
  type WebDeps,
} from './support.js';

/**
 * Creating, editing and deleting links (docs/web-ui.md#link-forms,
 * docs/web-ui.md#confirm-delete-dialogs): the create/edit forms (modal or page), the live
 * slug check, the confirm-delete dialog and delete. The link page is linkDetail.tsx;
 * archive and renew linkLifecycle.tsx; co-owners and shares linkMembers.tsx.
 * Every route loads the link, then asks LinkCaps; nothing here decides access.
 */

function formValues(req: FastifyRequest): LinkFormValues {
  return {
    slug: field(req, 'slug').trim(),
    url: field(req, 'url'),
    defaultUrl: field(req, 'default_url'),
    title: field(req, 'title'),
    description: field(req, 'description'),
    visibility: field(req, 'visibility'),
    expiresAt: field(req, 'expires_at'),
    healthChecksDisabled: checkbox(req, 'health_checks_disabled'),
    tags: field(req, 'tags'),
    aliases: field(req, 'aliases'),
    forwardPathAndQuery: checkbox(req, 'forward_path_and_query'),
    version: field(req, 'version').trim(),
  };
}

/** A NUL never reaches the store (PostgreSQL refuses it): named beside its field, in form order. */
function nulError(v: LinkFormValues, create: boolean): FormError | null {
  const name = firstNulField([
    ['slug', create ? v.slug : ''],
    ['url', v.url],
    ['default_url', v.defaultUrl],
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
    // The form always sends it: empty clears it.
    defaultUrl: v.defaultUrl,
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

  app.get('/dashboard/links/:id/edit', guard, async (req, reply) => {
    const got = await linkFor(deps, req, reply, 'canEdit');
    if (!got) return reply;
    const view = (await store.links.view(got.link.id))!;
    const values: LinkFormValues = {
      slug: view.slug,
      url: view.url,
      defaultUrl: view.defaultUrl ?? '',
      title: view.title,
      description: view.description,
      visibility: view.visibility,
      expiresAt: datetimeLocalValue(view.expiresAt),
      healthChecksDisabled: view.healthChecksDisabled,
      tags: view.tags.map((t) => t.name).join(', '),
      aliases: view.aliases.join(', '),
      forwardPathAndQuery: view.forwardPathAndQuery,
      version: viewVersion(view),
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
      // A form opened before someone else's save does not overwrite it (docs/web-ui.md#link-forms).
      await links.update(got.actor, got, draftOf(values), values.version === '' ? undefined : [values.version]);
    } catch (e) {
      const error =
        isAppError(e) && e.code === 'PRECONDITION_FAILED'
          ? {
              field: null,
              message: 'Someone changed this link after you opened this form, so your changes were not saved. Your edits are still below.',
              reload: `/dashboard/links/${link.id}/edit`,
            }
          : formError(e, 'Update failed.', link.slug, shortKeyword(config, req));
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
}
