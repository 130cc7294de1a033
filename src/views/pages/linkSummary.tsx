import type { LinkOwner } from '../../store/types.js';

export interface LinkSummaryProps {
  shortKeyword: string;
  slug: string;
  title: string;
  /** Where the link goes, as stored (a template shows as written). */
  url: string;
  owners: readonly LinkOwner[];
}

/**
 * `go/<name>+` for a colleague who may open the link but not manage it
 * (docs/links.md#the-plus-suffix): where it goes and who owns it, nothing more.
 */
export function LinkSummary({ shortKeyword, slug, title, url, owners }: LinkSummaryProps) {
  return (
    <section class="max-w-2xl mx-auto space-y-4" aria-labelledby="summary-title">
      <h1 id="summary-title" class="text-2xl font-bold break-words">
        {shortKeyword}/{slug}
        {title && <span class="font-normal"> — {title}</span>}
      </h1>
      <dl class="space-y-2">
        <dt class="font-semibold">Goes to</dt>
        <dd>
          <code class="break-all" data-link-url>
            {url}
          </code>
        </dd>
        <dt class="font-semibold">Owned by</dt>
        <dd>
          <ul data-link-owners>
            {owners.map((o) => (
              <li>
                {o.displayName} ({o.email})
              </li>
            ))}
          </ul>
        </dd>
      </dl>
    </section>
  );
}
