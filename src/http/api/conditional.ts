import { Type } from '@sinclair/typebox';

/**
 * Conditional requests on a link (docs/api.md#conditional-requests, RFC 9110 §13): its
 * version travels as a strong `ETag`; `If-Match` on a change names the versions the client
 * read, and `If-None-Match` on a read lets a client keep its copy.
 */

export function etagOf(version: string): string {
  return `"${version}"`;
}

/** The entity-tags of a list header, weak ones marked: `"a", W/"b"`; anything malformed is left out. */
function entityTags(header: string): Array<{ tag: string; weak: boolean }> {
  const out: Array<{ tag: string; weak: boolean }> = [];
  for (const m of header.matchAll(/(W\/)?"([^"]*)"/g)) out.push({ tag: m[2]!, weak: m[1] !== undefined });
  return out;
}

/**
 * What `If-Match` allows: undefined when absent or `*` (the link exists, which the route
 * checked already), else the versions a strong comparison accepts. A weak or malformed tag
 * accepts nothing, so such a header always fails the precondition, as RFC 9110 §13.1.1 says.
 */
export function ifMatchVersions(header: string | undefined): readonly string[] | undefined {
  if (header === undefined || header.trim() === '*') return undefined;
  return entityTags(header)
    .filter((t) => !t.weak)
    .map((t) => t.tag);
}

/** Whether `If-None-Match` names the version (weak comparison, `*` for any), so a read may answer 304. */
export function noneMatchHits(header: string | undefined, version: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  return entityTags(header).some((t) => t.tag === version);
}

const ETAG_HEADER = { ETag: Type.String({ description: 'the link’s version, a strong entity-tag: send it back in `If-Match`' }) };

/** Response headers of an answer that carries the link. */
export const LINK_VERSION_HEADERS = ETAG_HEADER;

export const IfMatchHeaders = Type.Object({
  'if-match': Type.Optional(
    Type.String({
      description: 'the `ETag` the change is based on (or `*`); another version by now is 412 PRECONDITION_FAILED, nothing changed',
    }),
  ),
});

export const IfNoneMatchHeaders = Type.Object({
  'if-none-match': Type.Optional(Type.String({ description: 'an `ETag` held: 304 without a body when the link is still at it' })),
});
