import { parseCidrList, type CidrList } from '../domain/clientIp.js';
import { absoluteUrl } from './addresses.js';
import { ConfigError, SETTINGS, type Reader } from './sources.js';

/**
 * How people sign in (docs/auth.md): OIDC when JOE_OIDC_ISSUER is set, forward-auth when
 * JOE_AUTH_PROXY_HEADER is, else local; and which peers are trusted proxies, whose forwarded
 * headers alone are believed (docs/server.md#client-address).
 */

export type AuthMode = 'local' | 'oidc' | 'proxy';

export interface OidcSettings {
  issuer: string | null;
  clientId: string | null;
  clientSecret: string | null;
  redirectUrl: string;
  adminGroups: string[];
  groupsClaim: string;
}

export interface AuthSettings {
  authMode: AuthMode;
  oidc: OidcSettings;
  authProxyHeader: string | null;
  /** Forward-auth: the header naming the user's groups (lower-cased), which synced groups follow. */
  forwardAuthGroupsHeader: string | null;
  trustedProxies: CidrList;
}

const HEADER_NAME = /^[A-Za-z0-9-]+$/;

export function authSettings(r: Reader, baseUrl: string): AuthSettings {
  const issuer = r.opt(SETTINGS.oidcIssuer);
  const clientId = r.opt(SETTINGS.oidcClientId);
  const clientSecret = r.opt(SETTINGS.oidcClientSecret);
  const oidcSet = [
    [SETTINGS.oidcIssuer.env, issuer],
    [SETTINGS.oidcClientId.env, clientId],
    [SETTINGS.oidcClientSecret.env, clientSecret],
  ] as const;
  const present = oidcSet.filter(([, v]) => v !== null);
  if (present.length > 0 && present.length < 3) {
    const missing = oidcSet.filter(([, v]) => v === null).map(([k]) => k);
    // The issuer is what turns OIDC mode on, so when it is set it alone is named as the reason
    // (`JOE_OIDC_CLIENT_SECRET is required when JOE_OIDC_ISSUER is set`, docs/server.md#configuration).
    const cause = issuer !== null ? [SETTINGS.oidcIssuer.env] : present.map(([k]) => k);
    throw new ConfigError(
      `${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} required when ${cause.join(' and ')} ${cause.length > 1 ? 'are' : 'is'} set`,
    );
  }
  if (issuer) absoluteUrl(SETTINGS.oidcIssuer, issuer);
  const redirectRaw = r.opt(SETTINGS.oidcRedirectUrl);
  const redirectUrl = redirectRaw ? absoluteUrl(SETTINGS.oidcRedirectUrl, redirectRaw) : `${baseUrl}/auth/callback`;

  let trustedProxies: CidrList;
  const trustedRaw = r.str(SETTINGS.trustedProxies, '');
  try {
    trustedProxies = parseCidrList(trustedRaw);
  } catch {
    throw new ConfigError(`invalid JOE_TRUSTED_PROXIES: "${trustedRaw}" (expected a comma list of IP addresses or CIDRs)`);
  }

  const authProxyHeader = r.opt(SETTINGS.authProxyHeader);
  if (authProxyHeader !== null) {
    if (issuer !== null) {
      throw new ConfigError('JOE_AUTH_PROXY_HEADER and JOE_OIDC_ISSUER cannot both be set: choose forward-auth or OIDC');
    }
    if (trustedProxies.length === 0) {
      throw new ConfigError('JOE_AUTH_PROXY_HEADER requires JOE_TRUSTED_PROXIES: the header is believed only from trusted proxies');
    }
    if (!HEADER_NAME.test(authProxyHeader)) {
      throw new ConfigError(`invalid JOE_AUTH_PROXY_HEADER: "${authProxyHeader}" (expected a header name such as X-Forwarded-Email)`);
    }
  }

  const groupsHeader = r.opt(SETTINGS.forwardAuthGroupsHeader);
  if (groupsHeader !== null) {
    if (!HEADER_NAME.test(groupsHeader)) {
      throw new ConfigError(`invalid JOE_FORWARD_AUTH_GROUPS_HEADER: "${groupsHeader}" (expected a header name such as Remote-Groups)`);
    }
    // Without forward-auth nobody vouches for the header: it would be ignored, silently.
    if (authProxyHeader === null) {
      throw new ConfigError('JOE_FORWARD_AUTH_GROUPS_HEADER requires JOE_AUTH_PROXY_HEADER: the groups come with forward-auth sign-in');
    }
  }

  const adminGroups = r
    .str(SETTINGS.oidcAdminGroups, '')
    .split(',')
    .map((g) => g.trim())
    .filter((g) => g !== '');

  return {
    authMode: issuer ? 'oidc' : authProxyHeader ? 'proxy' : 'local',
    oidc: { issuer, clientId, clientSecret, redirectUrl, adminGroups, groupsClaim: r.str(SETTINGS.oidcGroupsClaim, 'groups') },
    authProxyHeader: authProxyHeader?.toLowerCase() ?? null,
    forwardAuthGroupsHeader: groupsHeader?.toLowerCase() ?? null,
    trustedProxies,
  };
}
