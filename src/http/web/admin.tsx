import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { requestActor } from '../shared/actor.js';
import { requestUser } from '../../auth/currentUser.js';
import { requireAdmin } from './guards.js';
import { issueSignInUrl } from '../../auth/localLogin.js';
import { isAppError } from '../../domain/errors.js';
import type { Role, User } from '../../store/types.js';
import { isUuid, type LinkAction, type UserDeletion } from '../../links/index.js';
import { plural } from '../../views/format.js';
import { AdminOverview } from '../../views/pages/admin.js';
import { renderFragment } from '../../views/render.js';
import { webRoute } from './methodOverride.js';
import { firstNulKey, nulMessage, visibleNul } from '../../domain/nul.js';
import { isHtmx, pageContext, sendHtml, toastHeader } from './render.js';
import { field, notFound, param, query, seeOther, sendFragment, textError, wantsFragment, sendWithToast, type WebDeps } from './support.js';
import { ConfirmDelete } from '../../views/partials/confirmDelete.js';
import { ConfirmDeleteUser, SignInLinkModal, UserRow, UsersPage, UsersSection, type AddUserState } from '../../views/pages/adminUsers.js';
import { KeywordsPage, KeywordsSection, type KeywordFormState } from '../../views/pages/adminKeywords.js';
import { LinkHealthPage } from '../../views/pages/adminHealth.js';

/** The overview names this many of the worst broken links; the report has them all. */
const OVERVIEW_BROKEN = 5;
/** A failing webhook's failed deliveries are counted over this many days. */
const OVERVIEW_WEBHOOK_DAYS = 7;
const DAY_MS = 86_400_000;

const EMPTY_ADD_USER: AddUserState = { values: { email: '', name: '', role: 'user' }, error: null, created: null };
const EMPTY_KEYWORD_FORM: KeywordFormState = { values: { keyword: '', urlTemplate: '', description: '' }, error: null };

/** A value from the form body, or for DELETE requests sent with URL parameters, the query. */
function bodyOrQuery(req: FastifyRequest, name: string): string {
  return field(req, name) || query(req, name);
}

/**
 * The admin area (docs/web-ui.md#admin-screens, docs/lifecycle.md#badges-and-the-admin-report): overview, users (role,
 * delete with link disposition, local-mode onboarding), keywords and the
 * broken-destination report. Every route sits behind requireAdmin.
 */
export function registerAdminRoutes(app: FastifyInstance, deps: WebDeps): void {
  const { store, config } = deps;
  const guard = { preHandler: requireAdmin(deps) };
  const localMode = config.authMode === 'local';

  app.get('/admin', guard, async (req, reply) => {
    const [counts, broken, failingWebhooks, ctx] = await Promise.all([
      store.browse.adminCounts(),
      store.health.brokenSummary(OVERVIEW_BROKEN),
      store.webhooks.failing(store.now() - OVERVIEW_WEBHOOK_DAYS * DAY_MS),
      pageContext(deps, req),
    ]);
    return sendHtml(
      req,
      reply,
      ctx,
      'Admin Dashboard',
      <AdminOverview
        {...counts}
        shortKeyword={ctx.shortKeyword}
        broken={broken}
        failingWebhooks={failingWebhooks}
        webhookDays={OVERVIEW_WEBHOOK_DAYS}
      />,
    );
  });

  // --- users -------------------------------------------------------------------

  const usersReply = async (req: FastifyRequest, reply: FastifyReply, addUser: AddUserState, status = 200) => {
    const me = requestUser(req);
    const users = await store.users.listAll();
    const props = { users, selfId: me.id, localMode, addUser };
    if (wantsFragment(req)) return sendFragment(reply, renderFragment(<UsersSection {...props} />), 200);
    return sendHtml(req, reply, await pageContext(deps, req, me), 'Users', <UsersPage {...props} />, status);
  };

  const targetUser = async (req: FastifyRequest, reply: FastifyReply): Promise<User | null> => {
    const id = param(req, 'id');
    const user = isUuid(id) ? await store.users.findById(id) : null;
    if (!user) await notFound(deps, req, reply, 'That user does not exist.');
    return user;
  };

  app.get('/admin/users', guard, async (req, reply) => usersReply(req, reply, EMPTY_ADD_USER));

  webRoute(app, 'PUT', '/admin/users/:id/role', guard, async (req, reply) => {
    const target = await targetUser(req, reply);
    if (!target) return reply;
    const role = field(req, 'role');
    if (role !== 'user' && role !== 'admin') return textError(reply, 400, 'invalid role');
    // A role set by hand is kept across sign-ins (docs/auth.md#roles-and-admin-grants).
    const updated = await deps.users.setRole(requestActor(req), target.id, role as Role);
    const message = `${updated.displayName || updated.email} is now ${role === 'admin' ? 'an admin' : 'a user'}.`;
    if (!wantsFragment(req)) return seeOther(reply, '/admin/users', message);
    const row = <UserRow user={updated} selfId={requestUser(req).id} localMode={localMode} />;
    return sendWithToast(reply, row, message);
  });

  app.get('/admin/users/:id/confirm-delete', guard, async (req, reply) => {
    const target = await targetUser(req, reply);
    if (!target) return reply;
    if (target.id === requestUser(req).id) return textError(reply, 400, 'cannot delete yourself');
    const [primaryLinks, groupsAlone] = await Promise.all([
      store.userAdmin.primaryLinkCount(target.id),
      store.transaction((tx) => store.userAdmin.groupsManagedAlone(target.id, tx)),
    ]);
    return sendHtml(
      req,
      reply,
      await pageContext(deps, req),
      'Delete user',
      <ConfirmDeleteUser user={target} primaryLinks={primaryLinks} groupsAlone={groupsAlone.length} asModal={isHtmx(req)} />,
    );
  });

  webRoute(app, 'DELETE', '/admin/users/:id', guard, async (req, reply) => {
    const target = await targetUser(req, reply);
    if (!target) return reply;
    const raw = bodyOrQuery(req, 'link_action');
    const action: LinkAction | undefined = raw === 'reassign' || raw === 'delete' ? raw : undefined;
    if (raw !== '' && action === undefined) return textError(reply, 400, 'link_action required (reassign or delete)');
    // A successor only takes over links that are handed on; with "delete" the field is moot.
    const successor = action === 'delete' ? '' : bodyOrQuery(req, 'successor').trim();
    let result: UserDeletion;
    try {
      result = await deps.links.deleteUser(requestActor(req), target.id, { linkAction: action, successor: successor || undefined });
    } catch (e) {
      if (isAppError(e) && e.field === 'successor') return textError(reply, e.status, successorError(e.code));
      if (isAppError(e) && e.status < 500) return textError(reply, e.status, e.message);
      throw e;
    }
    const message = deletionMessage(target, result);
    if (wantsFragment(req)) return sendWithToast(reply, null, message);
    return seeOther(reply, '/admin/users', message);
  });

  // Local mode only: adding people and handing them sign-in links (docs/auth.md#local-mode).
  app.post('/admin/users', { ...guard, config: { handlesNul: true } }, async (req, reply) => {
    if (!localMode) return notFound(deps, req, reply);
    const values = { email: field(req, 'email').trim(), name: field(req, 'name').trim(), role: field(req, 'role') };
    const fail = (error: string) =>
      usersReply(
        req,
        reply,
        { values: { email: visibleNul(values.email), name: visibleNul(values.name), role: values.role }, error, created: null },
        400,
      );
    const nul = firstNulKey(values);
    if (nul) return fail(`${nulMessage(nul === 'name' ? 'Name' : nul === 'email' ? 'Email' : 'Role')}.`);
    if (values.email === '') return fail('Email is required.');
    if (values.role !== '' && values.role !== 'user' && values.role !== 'admin') return fail('invalid role');
    let user: User;
    try {
      user = await deps.users.create(requestActor(req), {
        email: values.email,
        displayName: values.name,
        role: values.role === 'admin' ? 'admin' : 'user',
      });
    } catch (e) {
      if (isAppError(e) && e.status === 400) return fail(e.message);
      throw e;
    }
    const url = await issueSignInUrl(store, config, user);
    if (wantsFragment(req)) toastHeader(reply, { level: 'success', message: `Added ${user.email}.` });
    return usersReply(req, reply, { values: EMPTY_ADD_USER.values, error: null, created: { email: user.email, url } });
  });

  app.post('/admin/users/:id/sign-in-link', guard, async (req, reply) => {
    if (!localMode) return notFound(deps, req, reply);
    const target = await targetUser(req, reply);
    if (!target) return reply;
    const url = await issueSignInUrl(store, config, target);
    return sendHtml(
      req,
      reply,
      await pageContext(deps, req),
      'New sign-in link',
      <SignInLinkModal email={target.email} url={url} asModal={isHtmx(req)} />,
    );
  });

  // --- keywords ----------------------------------------------------------------

  const keywordsReply = async (
    req: FastifyRequest,
    reply: FastifyReply,
    form: KeywordFormState,
    status = 200,
    toast: string | null = null,
  ) => {
    const keywords = await deps.keywords.list();
    if (wantsFragment(req)) {
      const section = <KeywordsSection keywords={keywords} form={form} />;
      return toast ? sendWithToast(reply, section, toast) : sendFragment(reply, renderFragment(section));
    }
    return sendHtml(
      req,
      reply,
      await pageContext(deps, req),
      'Keyword Templates',
      <KeywordsPage keywords={keywords} form={form} />,
      status,
    );
  };

  app.get('/admin/keywords', guard, async (req, reply) => keywordsReply(req, reply, EMPTY_KEYWORD_FORM));

  app.post('/admin/keywords', { ...guard, config: { handlesNul: true } }, async (req, reply) => {
    const values = {
      keyword: field(req, 'keyword').trim(),
      urlTemplate: field(req, 'url_template').trim(),
      description: field(req, 'description').trim(),
    };
    const fail = (error: string) =>
      keywordsReply(
        req,
        reply,
        {
          values: {
            keyword: visibleNul(values.keyword),
            urlTemplate: visibleNul(values.urlTemplate),
            description: visibleNul(values.description),
          },
          error,
        },
        400,
      );
    const nul = firstNulKey(values);
    if (nul) return fail(`${nulMessage(nul === 'keyword' ? 'Keyword' : nul === 'urlTemplate' ? 'URL template' : 'Description')}.`);
    if (values.keyword === '' || values.urlTemplate === '') return fail('Keyword and URL template are required.');
    try {
      await deps.keywords.create(requestActor(req), values);
    } catch (e) {
      if (isAppError(e) && e.field === 'keyword' && /already exists/.test(e.message))
        return fail('A keyword with that name already exists.');
      // The keyword's and the template's rules (domain/keywords.ts), in their own words.
      if (isAppError(e) && e.status === 400) return fail(e.message);
      req.log.error({ err: e }, 'creating a keyword failed');
      return fail('Failed to create keyword.');
    }
    const created = `Keyword ${values.keyword} created.`;
    if (!wantsFragment(req)) return seeOther(reply, '/admin/keywords', created);
    return keywordsReply(req, reply, EMPTY_KEYWORD_FORM, 200, created);
  });

  const findKeyword = async (req: FastifyRequest) => {
    const id = param(req, 'id');
    return isUuid(id) ? ((await deps.keywords.list()).find((k) => k.id === id) ?? null) : null;
  };

  app.get('/admin/keywords/:id/confirm-delete', guard, async (req, reply) => {
    const k = await findKeyword(req);
    if (!k) return notFound(deps, req, reply, 'That keyword does not exist.');
    return sendHtml(
      req,
      reply,
      await pageContext(deps, req),
      `Delete ${k.keyword}`,
      <ConfirmDelete
        name={k.keyword}
        action={`/admin/keywords/${k.id}`}
        target={`#keyword-${k.id}`}
        asModal={isHtmx(req)}
        cancelHref="/admin/keywords"
      />,
    );
  });

  webRoute(app, 'DELETE', '/admin/keywords/:id', guard, async (req, reply) => {
    const k = await findKeyword(req);
    const deleted = k !== null && (await deps.keywords.delete(requestActor(req), k.id));
    if (!deleted) return notFound(deps, req, reply, 'That keyword does not exist.');
    const message = `Keyword ${k.keyword} deleted.`;
    // The row's outerHTML becomes the empty body (docs/web-ui.md#confirm-delete-dialogs).
    if (wantsFragment(req)) return sendWithToast(reply, null, message);
    return seeOther(reply, '/admin/keywords', message);
  });

  // --- link health (docs/lifecycle.md#badges-and-the-admin-report) ---------------------------------------------

  app.get('/admin/link-health', guard, async (req, reply) => {
    const rows = await store.health.brokenReport();
    const ctx = await pageContext(deps, req);
    return sendHtml(
      req,
      reply,
      ctx,
      'Link Health',
      <LinkHealthPage rows={rows} shortKeyword={ctx.shortKeyword} canRecheck={config.healthChecks.enabled} />,
    );
  });
}

/** A person as messages name them: their display name, else their email. */
function nameOf(u: User): string {
  return u.displayName || u.email;
}

/** Why the named successor was refused, in the dialog's words. */
function successorError(code: string): string {
  if (code === 'NOT_FOUND') return 'Nobody with that successor email has signed in yet. Name someone who has, or leave it empty.';
  if (code === 'BAD_REQUEST') return 'The successor must be someone other than the user being deleted.';
  return 'That successor cannot take over.';
}

/** The toast of a deletion: whose account went and where their links went (docs/auth.md#deleting-a-user). */
export function deletionMessage(target: User, r: UserDeletion): string {
  const parts = [`Deleted the account of ${nameOf(target)}.`];
  if (r.deletedLinks > 0) parts.push(`${plural(r.deletedLinks, 'link')} deleted.`);
  if (r.toSuccessor > 0 && r.successor) parts.push(`${plural(r.toSuccessor, 'link')} went to ${nameOf(r.successor)}.`);
  if (r.toCoOwners > 0) parts.push(`${plural(r.toCoOwners, 'link')} went to a co-owner.`);
  if (r.groupsHandedOver > 0 && r.successor) parts.push(`${nameOf(r.successor)} now manages ${plural(r.groupsHandedOver, 'group')}.`);
  return parts.join(' ');
}
