/** What the resolver and its fast path both put on a redirect. */

/** A go link can be repointed at any time, so no hop may be cached. */
export const REDIRECT_CACHE_CONTROL = 'private, no-store';

const NOT_VISIBLE_ASCII = /[^\x21-\x7e]/u;

/** Header values must be visible ASCII; anything else is percent-encoded as UTF-8. */
export function locationHeader(url: string): string {
  // Nearly every destination is plain ASCII already: test before building a copy.
  return NOT_VISIBLE_ASCII.test(url) ? url.replace(/[^\x21-\x7e]/gu, (ch) => encodeURIComponent(ch)) : url;
}
