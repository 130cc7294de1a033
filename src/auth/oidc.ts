import type { FastifyBaseLogger } from 'fastify';
import * as client from 'openid-client';
import type { Config } from '../config.js';
import { randomToken, sha256Base64Url } from '../domain/secrets.js';

/**
 * OIDC sign-in with openid-client (docs/auth.md#oidc): authorization code
 * flow with PKCE S256, `state` and `nonce`. Provider metadata comes from
 * discovery, retried with backoff while the issuer is unreachable, so a
 * provider outage at startup degrades sign-in (503) instead of crashing the
 * server into a restart loop.
 */

export const OIDC_SCOPE = 'openid profile email';

/** The first retry waits this long; each further one twice as long, capped at a minute. */
const FIRST_RETRY_MS = 1_000;
const MAX_RETRY_MS = 60_000;
/** Seconds a discovery or token request may take. */
const REQUEST_TIMEOUT_S = 10;

export interface AuthRequest {
  url: string;
  state: string;
  nonce: string;
  verifier: string;
}

/** What a successful callback yields: the claims joe-links reads (docs/auth.md#oidc). */
export interface LoginClaims {
  issuer: string;
  subject: string;
  email: string;
  emailVerified: boolean;
  name: string;
  /** The raw value of the configured groups claim; the grant rule decides what counts. */
  groups: unknown;
}

/** A callback that must fail with 401: exchange, ID token or nonce problems, unreadable claims. */
export class OidcCallbackError extends Error {
  constructor(
    message: string,
    readonly reason: string,
  ) {
    super(message);
    this.name = 'OidcCallbackError';
  }
}

type OidcSettings = Pick<Config, 'oidc'>;

/**
 * One discovery of the configured issuer's metadata (`/.well-known/openid-configuration`):
 * what sign-in retries until it succeeds, and what `joe-links doctor` tries once.
 */
export function discoverProvider(settings: OidcSettings): Promise<client.Configuration> {
  const { issuer, clientId, clientSecret } = settings.oidc;
  const url = new URL(issuer!);
  return client.discovery(url, clientId!, { client_secret: clientSecret! }, client.ClientSecretBasic(clientSecret!), {
    // A plain-HTTP issuer is the operator's explicit choice (e.g. a provider on the same host).
    execute: url.protocol === 'http:' ? [client.allowInsecureRequests] : [],
    timeout: REQUEST_TIMEOUT_S,
  });
}

export class OidcClient {
  private configuration: client.Configuration | null = null;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private first: Promise<void> | null = null;

  constructor(
    private readonly settings: OidcSettings,
    private readonly log: FastifyBaseLogger,
    private readonly retry = { firstMs: FIRST_RETRY_MS, maxMs: MAX_RETRY_MS },
  ) {}

  /** The discovered configuration, or null while the issuer has not answered yet. */
  get ready(): client.Configuration | null {
    return this.configuration;
  }

  /** Starts discovery; the promise settles after the first attempt, whatever its outcome. */
  start(): Promise<void> {
    this.first ??= this.attempt(this.retry.firstMs);
    return this.first;
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private async attempt(nextDelayMs: number): Promise<void> {
    const { issuer } = this.settings.oidc;
    const insecure = new URL(issuer!).protocol === 'http:';
    try {
      const cfg = await discoverProvider(this.settings);
      if (this.stopped) return;
      this.configuration = cfg;
      if (insecure) this.log.warn(`JOE_OIDC_ISSUER ${issuer} is plain HTTP: tokens cross the network unencrypted`);
      this.log.info(`OIDC provider discovered: ${issuer}`);
    } catch (err) {
      if (this.stopped) return;
      this.log.error(
        { err },
        `OIDC discovery failed for JOE_OIDC_ISSUER=${issuer}: ${(err as Error).message}; sign-in is unavailable, retrying in ${Math.round(nextDelayMs / 1000)}s`,
      );
      this.timer = setTimeout(() => {
        this.timer = null;
        void this.attempt(Math.min(nextDelayMs * 2, this.retry.maxMs));
      }, nextDelayMs);
      this.timer.unref();
    }
  }

  /**
   * A fresh authorization request: `state` and `nonce` are 32 random bytes,
   * the PKCE verifier 64, all base64url without padding (docs/auth.md#oidc).
   */
  authorizationRequest(cfg: client.Configuration): AuthRequest {
    const state = randomToken(32);
    const nonce = randomToken(32);
    const verifier = randomToken(64);
    const url = client.buildAuthorizationUrl(cfg, {
      response_type: 'code',
      redirect_uri: this.settings.oidc.redirectUrl,
      scope: OIDC_SCOPE,
      state,
      nonce,
      code_challenge: sha256Base64Url(verifier),
      code_challenge_method: 'S256',
    });
    return { url: url.href, state, nonce, verifier };
  }

  /**
   * Exchanges the code (sending the PKCE verifier) and verifies the ID token:
   * signature against the issuer's keys, audience = client id, expiry, and
   * `nonce` equal to the one we sent. `query` is the callback's raw query string.
   */
  async complete(
    cfg: client.Configuration,
    query: string,
    checks: { state: string; nonce: string; verifier: string },
  ): Promise<LoginClaims> {
    const currentUrl = new URL(this.settings.oidc.redirectUrl);
    currentUrl.search = query;
    let tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>;
    try {
      tokens = await client.authorizationCodeGrant(cfg, currentUrl, {
        pkceCodeVerifier: checks.verifier,
        expectedState: checks.state,
        expectedNonce: checks.nonce,
        idTokenExpected: true,
      });
    } catch (err) {
      throw new OidcCallbackError(`code exchange or ID token verification failed: ${(err as Error).message}`, 'exchange');
    }
    const idClaims = tokens.claims();
    if (!idClaims) throw new OidcCallbackError('the token response carried no ID token', 'no_id_token');
    const claims: Record<string, unknown> = { ...idClaims };
    // Some providers keep profile claims out of the ID token; the UserInfo endpoint has them.
    if (typeof claims.email !== 'string' && tokens.access_token) {
      try {
        const info = await client.fetchUserInfo(cfg, tokens.access_token, idClaims.sub);
        for (const [k, v] of Object.entries(info)) if (!(k in claims)) claims[k] = v;
      } catch (err) {
        throw new OidcCallbackError(`the ID token has no email and UserInfo failed: ${(err as Error).message}`, 'claims');
      }
    }
    return readClaims(claims, this.settings.oidc.groupsClaim);
  }
}

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** The claims we store, validated so that nothing unusable reaches the database. */
export function readClaims(claims: Record<string, unknown>, groupsClaim: string): LoginClaims {
  const issuer = str(claims.iss);
  const subject = str(claims.sub);
  const email = str(claims.email)?.trim() ?? '';
  if (!issuer || !subject || issuer.length > 255 || subject.length > 255) {
    throw new OidcCallbackError('the ID token lacks a usable iss or sub claim', 'claims');
  }
  if (email === '' || email.length > 254 || !/^[^\s@]+@[^\s@]+$/.test(email)) {
    throw new OidcCallbackError(
      'the identity provider sent no usable email claim (is the "email" scope allowed for this client?)',
      'claims',
    );
  }
  // Display names are for people; an overlong one is shortened rather than refused.
  const name = [...(str(claims.name)?.trim() ?? '')].slice(0, 200).join('');
  const verified = claims.email_verified === true || claims.email_verified === 'true';
  return { issuer, subject, email, emailVerified: verified, name, groups: claims[groupsClaim] };
}
