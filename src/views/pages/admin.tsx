import { Icon, type IconName } from '../partials/icons.js';
import { PageHeader } from '../partials/ui.js';

/** The admin overview of docs/web-ui.md#admin-screens: how many people, links and keywords, each a way in. */

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

export function AdminOverview({ users, links, keywords }: { users: number; links: number; keywords: number }) {
  return (
    <>
      <PageHeader title="Admin Dashboard" subtitle="Manage people, links and keyword templates." />
      <div class="grid gap-4 sm:grid-cols-2 lg:grid-cols-3">
        <StatCard label="Total Users" value={users} href="/admin/users" cta="Manage →" icon="users" />
        <StatCard label="Total Links" value={links} href="/admin/links" cta="View →" icon="link" />
        <StatCard label="Keywords" value={keywords} href="/admin/keywords" cta="Manage →" icon="terminal" />
      </div>
    </>
  );
}
