/**
 * Safe return targets after sign-in (docs/auth.md#safe-return-urls). Only a path on this
 * server is accepted: it starts with `/`, is not protocol-relative (`//`,
 * `/\`), and holds no backslash and no ASCII control character — browsers
 * drop TAB/CR/LF from URLs, so `/\t/evil.com` would otherwise become
 * `//evil.com`. Anything else becomes the dashboard.
 *
 * The value arrives percent-decoded once (query string, cookie). It is
 * checked as given and once more decoded, so that a target which some
 * later hop might decode again (`/%2F/evil.com`, `/%5Cevil.com`,
 * `/%09/evil.com`) is refused as well; no real page of ours needs those.
 */
export const DEFAULT_RETURN_URL = '/dashboard';

/** C0 controls and DEL. */
const CONTROL = /[\u0000-\u001f\u007f]/;

function isSafePath(p: string): boolean {
  return p.startsWith('/') && !p.startsWith('//') && !p.startsWith('/\\') && !p.includes('\\') && !CONTROL.test(p);
}

export function safeReturnUrl(input: unknown): string {
  if (typeof input !== 'string' || input === '' || input.length > 2048) return DEFAULT_RETURN_URL;
  if (!isSafePath(input)) return DEFAULT_RETURN_URL;
  let decoded: string;
  try {
    decoded = decodeURIComponent(input);
  } catch {
    // Malformed escapes: nothing a browser would resolve predictably.
    return DEFAULT_RETURN_URL;
  }
  return isSafePath(decoded) ? input : DEFAULT_RETURN_URL;
}
