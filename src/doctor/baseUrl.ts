import type { Config } from '../config.js';
import { fail, ok, warn, type CheckResult } from './check.js';

/**
 * Whether JOE_BASE_URL fits the rest of the configuration (docs/operations.md#doctor): every
 * printed and redirected address is built from it, and the session cookie's `Secure` flag
 * decides whether a browser keeps it over plain HTTP.
 */

const CHECK = 'base URL';
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

type BaseUrlSettings = Pick<Config, 'baseUrl' | 'insecureCookies' | 'http' | 'authMode' | 'oidc'>;

export function checkBaseUrl(config: BaseUrlSettings, explicitlySet: boolean): CheckResult[] {
  const url = new URL(config.baseUrl);
  const results: CheckResult[] = [];
  const local = LOOPBACK.has(url.hostname);
  if (!explicitlySet) {
    results.push(
      warn(
        CHECK,
        `JOE_BASE_URL is not set, so sign-in links and app-state links point at ${config.baseUrl}`,
        'set JOE_BASE_URL to the address people type, e.g. https://go.example.com',
      ),
    );
  }
  if (url.pathname !== '/' || url.search !== '' || url.hash !== '') {
    results.push(
      fail(
        CHECK,
        `JOE_BASE_URL ${config.baseUrl} has a path: joe-links answers at the root of its host, so links built from it would miss`,
        'give joe-links a host name of its own and set JOE_BASE_URL to its origin, e.g. https://go.example.com',
      ),
    );
  }
  if (url.protocol === 'http:' && !local && !config.insecureCookies) {
    results.push(
      fail(
        CHECK,
        `JOE_BASE_URL ${config.baseUrl} is plain HTTP on a non-local host, but the session cookie is Secure: browsers drop it and nobody stays signed in`,
        'serve joe-links over HTTPS (TLS at your proxy) and set JOE_BASE_URL to https://…; for a plain-HTTP trial only, set JOE_INSECURE_COOKIES=true',
      ),
    );
  }
  if (url.protocol === 'https:' && config.insecureCookies) {
    results.push(
      warn(
        CHECK,
        'JOE_INSECURE_COOKIES=true although JOE_BASE_URL is HTTPS: the session cookie is also sent over plain HTTP',
        'unset JOE_INSECURE_COOKIES',
      ),
    );
  }
  const basePort = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  if (local && explicitlySet && basePort !== config.http.port) {
    results.push(
      warn(
        CHECK,
        `JOE_BASE_URL ${config.baseUrl} names port ${basePort}, but joe-links listens on ${config.http.port}`,
        `unless a proxy on port ${basePort} forwards to it, set JOE_BASE_URL to http://${url.hostname}:${config.http.port}`,
      ),
    );
  }
  if (config.authMode === 'oidc' && new URL(config.oidc.redirectUrl).origin !== url.origin) {
    results.push(
      warn(
        CHECK,
        `the OIDC redirect URL ${config.oidc.redirectUrl} is not on JOE_BASE_URL's origin ${url.origin}: the sign-in cookies set there do not reach it`,
        'unset JOE_OIDC_REDIRECT_URL (it defaults to JOE_BASE_URL/auth/callback) or make both name the same origin',
      ),
    );
  }
  if (results.every((r) => r.status === 'ok')) results.push(ok(CHECK, `${config.baseUrl}`));
  return results;
}
