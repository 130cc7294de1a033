import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { VNode } from 'preact';
import { PRE_AUTH, PRE_AUTH_MAX_AGE_S, authCookieAttributes, clearAuthCookie, readCookie } from '../../auth/cookies.js';
import { currentUser } from '../../auth/currentUser.js';
import { applyLoginGrant, isEnvGrantedAdmin } from '../../auth/grants.js';
import { applySignInGroups, claimedGroups, type GroupSyncer } from '../../auth/groupSync.js';
import { OidcCallbackError, OidcClient } from '../../auth/oidc.js';
import { safeReturnUrl } from '../../auth/returnUrl.js';
import { endSession, startSession } from '../../auth/session.js';
import type { Config } from '../../config.js';
import type { Store } from '../../store/index.js';
import type { User } from '../../store/types.js';
import {
  LocalModeSignIn,
  LocalSignInConfirm,
  LocalSignInInvalid,
  ProxyModeSignIn,
  SignInFailed,
  SignInUnavailable,
  SignOutConfirm,
} from '../../views/pages/auth.js';
import { pageContext, sendHtml } from './render.js';

/**
 * The sign-in routes, in the web context's `signIn` context (http/web/index.ts):
 * they pass the cross-site check and forward-auth sign-in like every page, but
 * not the vanished-user check, because they replace the session themselves.
 */

export interface AuthDeps {
  config: Config;
  store: Pick<Store, 'identities' | 'loginTokens' | 'notifications' | 'now' | 'sessions' | 'users'>;
  /** Keeps synced groups in step with the groups claim at every OIDC sign-in. */
  links: GroupSyncer;
}

type Query = Record<string, unknown>;

const param = (source: unknown, name: string): string | undefined => {
  const v = (source as Query | undefined)?.[name];
  return typeof v === 'string' ? v : undefined;
};

const PRE_AUTH_NAMES = Object.values(PRE_AUTH);

export function registerAuth(app: FastifyInstance, deps: AuthDeps): { oidc: OidcClient | null } {
  const { config, store } = deps;

  let oidc: OidcClient | null = null;
  if (config.authMode === 'oidc') {
    const client = new OidcClient(config, app.log);
    oidc = client;
    // The first discovery attempt finishes before the server listens, so a healthy
    // provider means sign-in works from the first request; a failing one only delays.
    app.addHook('onReady', async () => client.start());
    app.addHook('onClose', async () => client.stop());
  }

  const page = async (req: FastifyRequest, reply: FastifyReply, title: string, body: VNode, status = 200, user?: User | null) =>
    sendHtml(req, reply, await pageContext(deps, req, user), title, body, status);

  const signInUser = async (req: FastifyRequest, reply: FastifyReply, user: User, granted: boolean): Promise<void> => {
    const effective = await applyLoginGrant(store, req.log, user, granted);
    await startSession(deps, req, reply, effective);
  };

  app.get('/auth/login', async (req, reply) => {
    const returnUrl = safeReturnUrl(param(req.query, 'return_url'));
    if (config.authMode !== 'oidc') {
      // Nothing to start here: an already signed-in visitor simply goes on.
      if (await currentUser(req, store)) return reply.code(302).header('location', returnUrl).send();
      const body = config.authMode === 'local' ? <LocalModeSignIn /> : <ProxyModeSignIn />;
      return page(req, reply, 'Sign in', body);
    }
    const cfg = oidc!.ready;
    if (!cfg) return page(req, reply, 'Sign-in unavailable', <SignInUnavailable />, 503, null);
    const auth = oidc!.authorizationRequest(cfg);
    const attrs = { ...authCookieAttributes(config), maxAge: PRE_AUTH_MAX_AGE_S };
    reply
      .setCookie(PRE_AUTH.state, auth.state, attrs)
      .setCookie(PRE_AUTH.nonce, auth.nonce, attrs)
      .setCookie(PRE_AUTH.pkce, auth.verifier, attrs)
      .setCookie(PRE_AUTH.redirect, returnUrl, attrs);
    return reply.code(302).header('cache-control', 'private, no-store').header('location', auth.url).send();
  });

  app.get('/auth/callback', async (req, reply) => {
    if (config.authMode !== 'oidc') return reply.callNotFound();
    const cfg = oidc!.ready;
    if (!cfg) return page(req, reply, 'Sign-in unavailable', <SignInUnavailable />, 503, null);
    const fail = (status: number, message: string) =>
      page(req, reply, 'Sign-in failed', <SignInFailed status={status} message={message} />, status, null);

    const state = readCookie(req, PRE_AUTH.state);
    if (!state || state !== param(req.query, 'state')) {
      req.log.warn('OIDC callback refused: state missing or different from the __auth_state cookie');
      return fail(400, 'invalid state: the sign-in took too long or was started elsewhere. Please try again.');
    }
    const verifier = readCookie(req, PRE_AUTH.pkce);
    if (!verifier) return fail(400, 'missing code verifier: please start the sign-in again.');
    const nonce = readCookie(req, PRE_AUTH.nonce);
    const clearFlow = () => {
      for (const name of PRE_AUTH_NAMES) clearAuthCookie(reply, config, name);
    };

    let claims;
    try {
      if (!nonce) throw new OidcCallbackError('the __auth_nonce cookie is missing', 'nonce');
      const q = req.url.indexOf('?');
      claims = await oidc!.complete(cfg, q === -1 ? '' : req.url.slice(q + 1), { state, nonce, verifier });
    } catch (err) {
      if (!(err instanceof OidcCallbackError)) throw err;
      req.log.warn({ reason: err.reason }, `OIDC callback refused: ${err.message}`);
      clearFlow();
      return fail(401, 'The identity provider did not confirm who you are. Please try again.');
    }

    const granted = isEnvGrantedAdmin(config, { email: claims.email, groups: claims.groups });
    let user: User;
    try {
      user = await store.identities.upsertOidc(
        { issuer: claims.issuer, subject: claims.subject, email: claims.email, emailVerified: claims.emailVerified, name: claims.name },
        granted ? { role: 'admin', roleSource: 'config' } : { role: 'user', roleSource: 'manual' },
      );
    } catch (err) {
      req.log.error({ err, issuer: claims.issuer, subject: claims.subject }, 'OIDC login: could not save the user');
      clearFlow();
      return fail(500, 'Your account could not be saved. Please try again in a moment.');
    }
    await signInUser(req, reply, user, granted);
    await applySignInGroups(deps.links, req.log, user, claimedGroups(claims.groups));
    const target = safeReturnUrl(readCookie(req, PRE_AUTH.redirect));
    clearFlow();
    req.log.info({ userId: user.id }, 'signed in with OIDC');
    return reply.code(302).header('cache-control', 'private, no-store').header('location', target).send();
  });

  app.get('/auth/local', async (req, reply) => {
    if (config.authMode !== 'local') return reply.callNotFound();
    // The token is in this page's URL: keep it out of Referer headers sent to
    // other sites. Not `no-referrer`: under that policy browsers send
    // `Origin: null` with the page's own form post, which the cross-site
    // check must refuse.
    reply.header('referrer-policy', 'same-origin');
    const token = param(req.query, 'token') ?? '';
    const user = await store.loginTokens.peek(token);
    if (!user) return page(req, reply, 'Sign-in link invalid', <LocalSignInInvalid />, 400, null);
    return page(req, reply, 'Sign in', <LocalSignInConfirm email={user.email} token={token} />, 200, null);
  });

  app.post('/auth/local', async (req, reply) => {
    if (config.authMode !== 'local') return reply.callNotFound();
    const userId = await store.loginTokens.consume(param(req.body, 'token') ?? '');
    const user = userId ? await store.users.findById(userId) : null;
    if (!user) return page(req, reply, 'Sign-in link invalid', <LocalSignInInvalid />, 400, null);
    await signInUser(req, reply, user, isEnvGrantedAdmin(config, { email: user.email }));
    req.log.info({ userId: user.id }, 'signed in with a one-time link');
    return reply.code(302).header('cache-control', 'private, no-store').header('location', '/dashboard').send();
  });

  app.post('/auth/logout', async (req, reply) => {
    await endSession(deps, req, reply);
    // The landing page, never /auth/login: that would sign the user straight back in through a live IdP session.
    return reply.code(302).header('cache-control', 'private, no-store').header('location', '/').send();
  });

  app.get('/auth/logout', async (req, reply) => page(req, reply, 'Sign out', <SignOutConfirm />));

  return { oidc };
}
