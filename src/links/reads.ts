import type { LinkExportLine } from '../domain/linkRecords.js';
import type { Store } from '../store/index.js';
import type { LinkView, Viewer } from '../store/types.js';
import { iso, isoOrNull, toLinkResource, type LinkResource } from './resource.js';

/** The link resources of a list, `health` on exactly the rows the viewer holds CanView on. */
export async function linkResources(
  store: Pick<Store, 'health' | 'now'>,
  links: readonly LinkView[],
  viewer: Viewer,
): Promise<LinkResource[]> {
  const health = await store.health.visibleTo(links, viewer);
  const now = store.now();
  return links.map((l) => toLinkResource(l, now, health.get(l.id)));
}

/** A link for a caller already known to hold CanView: health included. */
export async function fullLinkResource(store: Pick<Store, 'health' | 'now'>, view: LinkView): Promise<LinkResource> {
  return toLinkResource(view, store.now(), await store.health.forLink(view));
}

export function toExportLine(l: LinkView): LinkExportLine {
  return {
    slug: l.slug,
    url: l.url,
    title: l.title,
    description: l.description,
    visibility: l.visibility,
    tags: l.tags.map((t) => t.name),
    owners: l.owners.map((o) => o.email),
    expires_at: isoOrNull(l.expiresAt),
    archived_at: isoOrNull(l.archivedAt),
    health_checks_disabled: l.healthChecksDisabled,
    aliases: [...l.aliases],
    forward_path_and_query: l.forwardPathAndQuery,
    default_url: l.defaultUrl,
    created_at: iso(l.createdAt),
  };
}

/**
 * Every link in slug order as export lines, one keyset page at a time:
 * memory stays flat however many links there are, and a link created or
 * deleted during the export can never make another appear twice.
 */
export async function* exportLines(store: Pick<Store, 'links'>, pageSize = 500): AsyncGenerator<LinkExportLine> {
  let afterSlug: string | undefined;
  for (;;) {
    const page = await store.links.list({ scope: 'all', viewer: null, afterSlug, limit: pageSize });
    for (const l of page.links) yield toExportLine(l);
    if (!page.hasMore || page.links.length === 0) return;
    afterSlug = page.links[page.links.length - 1]!.slug;
  }
}
