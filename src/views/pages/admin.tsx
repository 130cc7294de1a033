import type { ComponentChildren } from 'preact';
import type { BrokenLinkRow } from '../../store/health.js';
import type { FailingWebhook } from '../../store/webhooks.js';
import { plural } from '../format.js';
import { Icon, type IconName } from '../partials/icons.js';
import { PageHeader } from '../partials/ui.js';

/**
 * The admin overview of docs/web-ui.md#admin-screens: how many people, links and keywords, each a
 * way in; then what needs attention: broken links (the worst few) and webhooks that fail.
 */

function StatCard({ label, value, href, cta, icon }: { label: string; value: number; href: string; cta: string; icon: IconName }) {
  return (
    <div class="card bg-base-100 border border-base-300">
      <div class="card-body">
        <div class="flex items-center justify-between">
          <h2 class="text-sm font-medium text-base-content/70">{label}</h2>
          <Icon name={icon} class="size-5 opacity-70" />
        </div>
        <p class="text-3xl font-bold">{value}</p>
        <a class="link link-hover text-sm font-medium" href={href}>
          {cta}
        </a>
      </div>
    </div>
  );
}

/** One "needs attention" panel: a heading with its count, the few items, and the way to the whole list. */
function AttentionCard(p: {
  id: string;
  title: string;
  icon: IconName;
  summary: string;
  href: string;
  cta: string;
  children?: ComponentChildren;
}) {
  return (
    <section class="card bg-base-100 border border-base-300" aria-labelledby={`${p.id}-title`} id={p.id}>
      <div class="card-body gap-3">
        <div class="flex items-center justify-between gap-2">
          <h2 id={`${p.id}-title`} class="card-title text-base">
            {p.title}
          </h2>
          <Icon name={p.icon} class="size-5 opacity-70" />
        </div>
        <p class="text-sm">{p.summary}</p>
        {p.children}
        <a class="link link-hover text-sm font-medium" href={p.href}>
          {p.cta}
        </a>
      </div>
    </section>
  );
}

export interface AdminOverviewProps {
  users: number;
  links: number;
  keywords: number;
  shortKeyword: string;
  /** Broken links in all and the worst few (most failures first). */
  broken: { total: number; worst: readonly BrokenLinkRow[] };
  failingWebhooks: readonly FailingWebhook[];
  /** The window `failures` of a failing webhook counts over, in days. */
  webhookDays: number;
}

export function AdminOverview(p: AdminOverviewProps) {
  return (
    <>
      <PageHeader title="Admin Dashboard" subtitle="Manage people, links and keyword templates." />
      <div class="grid gap-4 sm:grid-cols-2 lg:grid-cols-3">
        <StatCard label="Total Users" value={p.users} href="/admin/users" cta="Manage →" icon="users" />
        <StatCard label="Total Links" value={p.links} href="/admin/links" cta="View →" icon="link" />
        <StatCard label="Keywords" value={p.keywords} href="/admin/keywords" cta="Manage →" icon="terminal" />
      </div>
      <div class="mt-4 grid gap-4 lg:grid-cols-2">
        <AttentionCard
          id="overview-broken"
          title="Broken links"
          icon="pulse"
          summary={p.broken.total === 0 ? 'No broken links: every checked destination answered.' : plural(p.broken.total, 'broken link')}
          href="/admin/link-health"
          cta="Link Health →"
        >
          {p.broken.worst.length > 0 && (
            <ul class="space-y-2">
              {p.broken.worst.map((r) => (
                <li class="flex items-baseline justify-between gap-3 text-sm">
                  <a class="font-mono link-brand font-semibold hover:underline break-words min-w-0" href={`/dashboard/links/${r.id}`}>
                    {`${p.shortKeyword}/${r.slug}`}
                  </a>
                  <span class="shrink-0">{plural(r.consecutiveFailures, 'failure')}</span>
                </li>
              ))}
            </ul>
          )}
        </AttentionCard>
        <AttentionCard
          id="overview-webhooks"
          title="Failing webhooks"
          icon="bolt"
          summary={
            p.failingWebhooks.length === 0
              ? 'No failing webhooks: every endpoint took its latest delivery.'
              : plural(p.failingWebhooks.length, 'failing webhook')
          }
          href="/admin/webhooks"
          cta="Webhooks →"
        >
          {p.failingWebhooks.length > 0 && (
            <ul class="space-y-2">
              {p.failingWebhooks.map((w) => (
                <li class="text-sm">
                  <a class="link link-hover font-medium wrap-anywhere" href={`/admin/webhooks/${w.id}`}>
                    {w.url}
                  </a>
                  <p class="text-base-content/70">
                    {`${plural(w.failures, 'failed delivery', 'failed deliveries')} in ${p.webhookDays} days · last: ${
                      w.lastStatus !== null ? `HTTP ${w.lastStatus}` : (w.lastError ?? 'no answer')
                    }`}
                  </p>
                </li>
              ))}
            </ul>
          )}
        </AttentionCard>
      </div>
    </>
  );
}
