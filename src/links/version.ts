import { createHash } from 'node:crypto';
import type { Link } from '../store/types.js';
import { fieldsOf } from './context.js';

/**
 * A link's version (docs/api.md#conditional-requests): a digest of everything an edit can
 * change — its name, the fields history records, and when it last changed — so two
 * reads answer the same version exactly when nothing was edited in between. REST sends it
 * as the `ETag`, the web edit form and MCP carry it, and an edit or delete that names a
 * version is refused when the link's is another by then (checked on the locked row).
 */
export function linkVersion(link: Link, tagNames: readonly string[], aliases: readonly string[]): string {
  const fields = fieldsOf(link, [...tagNames].sort(), [...aliases].sort());
  return createHash('sha256')
    .update(JSON.stringify([link.id, link.slug, link.updatedAt, fields]))
    .digest('base64url')
    .slice(0, 22);
}

/** The version of a link as read with its tags and aliases. */
export function viewVersion(view: Link & { tags: ReadonlyArray<{ name: string }>; aliases: readonly string[] }): string {
  return linkVersion(
    view,
    view.tags.map((t) => t.name),
    view.aliases,
  );
}
