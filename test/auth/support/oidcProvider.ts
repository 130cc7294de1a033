import { generateKeyPairSync } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';
import { get, type RawResponse } from '../../helpers/server.js';

/**
 * A real OpenID Provider (`oidc-provider`) on 127.0.0.1, and a small
 * browser: it follows redirects between the provider and joe-links, keeps
 * each side's cookies, and fills in the provider's development login form.
 *
 * joe-links is configured with a fixed redirect URL on a name that does not
 * resolve (`http://joe-links.test/auth/callback`); the browser delivers
 * anything addressed there to the test server. The provider checks the
 * redirect URI exactly, so registration and configuration must agree, and a
 * fixed one spares the test from knowing the server's random port up front.
 */

export const REDIRECT_URL = 'http://joe-links.test/auth/callback';
export const CLIENT_ID = 'joe-links';
export const CLIENT_SECRET = 'a-long-enough-client-secret-for-hs256-0123456789';

export interface TestAccount {
  email?: string;
  email_verified?: boolean;
  name?: string;
  groups?: unknown;
}

export interface TestProvider {
  issuer: string;
  /** Accounts by subject; change them between logins to simulate IdP-side changes. */
  accounts: Map<string, TestAccount>;
  /** JOE_* settings that point joe-links at this provider. */
  env(extra?: Record<string, string>): Record<string, string>;
  stop(): Promise<void>;
}

export async function startOidcProvider(opts: { port?: number } = {}): Promise<TestProvider> {
  const accounts = new Map<string, TestAccount>();
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: CLIENT_ID,
        client_secret: CLIENT_SECRET,
        redirect_uris: [REDIRECT_URL],
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    async findAccount(_ctx: unknown, sub: string) {
      const account = accounts.get(sub);
      if (!account) return undefined;
      return { accountId: sub, claims: () => ({ sub, ...accounts.get(sub) }) };
    },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'groups'] },
    // Put the profile claims into the ID token itself, as Keycloak and Google do.
    conformIdTokenClaims: false,
    features: { devInteractions: { enabled: true } },
    pkce: { required: () => true },
    cookies: { keys: ['test-cookie-signing-key'] },
    jwks: {
      keys: [
        {
          ...generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' }),
          kid: 'test',
          use: 'sig',
          alg: 'RS256',
        },
      ],
    },
    ttl: { Interaction: 600, Grant: 600, Session: 600, AccessToken: 600, IdToken: 600, AuthorizationCode: 60 },
    // Consent is granted up front, so a login is: authorize → login form → callback.
    async loadExistingGrant(ctx: { oidc: { client: { clientId: string }; session: { accountId: string } } }) {
      const grant = new provider.Grant({ accountId: ctx.oidc.session.accountId, clientId: ctx.oidc.client.clientId });
      grant.addOIDCScope('openid profile email');
      grant.addOIDCClaims(['email', 'email_verified', 'name', 'groups']);
      await grant.save();
      return grant;
    },
  });
  server.on('request', provider.callback());

  return {
    issuer,
    accounts,
    env: (extra = {}) => ({
      JOE_OIDC_ISSUER: issuer,
      JOE_OIDC_CLIENT_ID: CLIENT_ID,
      JOE_OIDC_CLIENT_SECRET: CLIENT_SECRET,
      JOE_OIDC_REDIRECT_URL: REDIRECT_URL,
      ...extra,
    }),
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Cookies by name for one host; enough for the flows under test (paths are ignored). */
export class CookieJar {
  readonly cookies = new Map<string, string>();

  store(res: RawResponse): void {
    const raw = res.headers.raw['set-cookie'] ?? [];
    for (const line of raw) {
      const [pair, ...attrs] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      const expired = attrs.some((a) => {
        const [k, v] = a.trim().split('=');
        if (k?.toLowerCase() === 'max-age') return Number(v) <= 0;
        if (k?.toLowerCase() === 'expires') return Date.parse(v ?? '') <= Date.now();
        return false;
      });
      if (expired) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

export interface Browser {
  app: CookieJar;
  idp: CookieJar;
}

export function newBrowser(): Browser {
  return { app: new CookieJar(), idp: new CookieJar() };
}

/**
 * Starts at `GET /auth/login` and follows the flow until the provider sends
 * the browser back with a code. Returns the callback's query string, not yet
 * delivered, so a test can tamper with it or deliver it twice.
 */
export async function authorize(appUrl: string, b: Browser, sub: string, returnUrl?: string): Promise<string> {
  const login = await get(
    `${appUrl}/auth/login${returnUrl === undefined ? '' : `?return_url=${encodeURIComponent(returnUrl)}`}`,
    cookieHeader(b.app),
  );
  if (login.status !== 302) throw new Error(`/auth/login answered ${login.status}: ${await login.text()}`);
  b.app.store(login);
  let location = login.headers.get('location')!;
  for (let hop = 0; hop < 10; hop++) {
    if (location.startsWith(REDIRECT_URL)) return new URL(location).search.slice(1);
    const r = await get(location, cookieHeader(b.idp));
    b.idp.store(r);
    if (r.status === 200 && location.includes('/interaction/')) {
      const html = await r.text();
      const prompt = /name="prompt" value="(\w+)"/.exec(html)?.[1];
      const body = prompt === 'login' ? `prompt=login&login=${encodeURIComponent(sub)}&password=x` : `prompt=${prompt}`;
      const submit = await get(location, { ...cookieHeader(b.idp), 'content-type': 'application/x-www-form-urlencoded' }, 'POST', body);
      b.idp.store(submit);
      location = new URL(submit.headers.get('location')!, location).href;
      continue;
    }
    if (r.status < 300 || r.status >= 400) throw new Error(`provider answered ${r.status} at ${location}: ${await r.text()}`);
    location = new URL(r.headers.get('location')!, location).href;
  }
  throw new Error('too many redirects');
}

/** Delivers the provider's answer to joe-links, as the browser would. */
export async function callback(appUrl: string, b: Browser, query: string, cookies?: string): Promise<RawResponse> {
  const r = await get(`${appUrl}/auth/callback?${query}`, cookies === undefined ? cookieHeader(b.app) : { cookie: cookies });
  b.app.store(r);
  return r;
}

export async function login(appUrl: string, b: Browser, sub: string, returnUrl?: string): Promise<RawResponse> {
  return callback(appUrl, b, await authorize(appUrl, b, sub, returnUrl));
}

function cookieHeader(jar: CookieJar): Record<string, string> {
  const c = jar.header();
  return c === '' ? {} : { cookie: c };
}
