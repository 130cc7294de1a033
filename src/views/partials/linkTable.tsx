import type { LinkCaps } from '../../domain/caps.js';
import type { LinkHealth } from '../../domain/health.js';
import type { LifecycleState } from '../../domain/lifecycle.js';
import type { LinkView } from '../../store/types.js';
import { LocalTime } from './localTime.js';
import { Icon } from './icons.js';
import { CopyButton, Spinner, VisibilityBadge } from './ui.js';

/**
 * The one link table of docs/web-ui.md#link-tables. Callers pick a variant; the variant
 * decides the columns, the actions and whether lifecycle/health badges show.
 * Every action is gated by the row's LinkCaps, computed by the caller through
 * `store.access.capsMany` (never re-derived here).
 */

export interface LinkRowData {
  link: LinkView;
  caps: LinkCaps;
  state: LifecycleState;
  /** Only for viewers holding CanView; null hides health. */
  health: LinkHealth | null;
}

export type LinkTableVariant = 'dashboard' | 'tag' | 'admin' | 'public';

export interface LinkTableEnv {
  shortKeyword: string;
  /** `scheme://host` of the request, for absolute copy URLs. */
  origin: string;
  viewerId: string | null;
}

interface Columns {
  title: boolean;
  owners: 'none' | 'all' | 'primary';
  tags: boolean;
  actions: 'none' | 'caps' | 'admin';
  badges: boolean;
  /** The Renew button's place for expired rows, or null for none. */
  renew: RenewFrom | null;
  descriptionCut: number | null;
  /** The widest tables show their description column only on very wide screens. */
  descriptionClass: string;
  tagsClass: string;
  createdClass: string;
}

const COLUMNS: Record<LinkTableVariant, Columns> = {
  dashboard: {
    title: false,
    owners: 'none',
    tags: false,
    actions: 'caps',
    badges: true,
    renew: 'dashboard',
    descriptionCut: null,
    descriptionClass: 'hidden xl:table-cell',
    tagsClass: '',
    createdClass: 'hidden lg:table-cell',
  },
  tag: {
    title: true,
    owners: 'none',
    tags: false,
    actions: 'caps',
    badges: true,
    renew: 'tag',
    descriptionCut: null,
    descriptionClass: 'hidden xl:table-cell',
    tagsClass: '',
    createdClass: 'hidden lg:table-cell',
  },
  admin: {
    title: true,
    owners: 'all',
    tags: true,
    actions: 'admin',
    badges: true,
    renew: 'admin',
    descriptionCut: null,
    descriptionClass: 'hidden 2xl:table-cell',
    tagsClass: 'hidden 2xl:table-cell',
    createdClass: 'hidden 2xl:table-cell',
  },
  public: {
    title: false,
    owners: 'primary',
    tags: true,
    actions: 'none',
    badges: false,
    renew: null,
    descriptionCut: 150,
    descriptionClass: 'hidden xl:table-cell',
    tagsClass: 'hidden lg:table-cell',
    createdClass: 'hidden lg:table-cell',
  },
};

/** Destinations are http(s) by validation; anything else stored long ago is shown as text, never linked. */
export function safeHref(url: string): string | undefined {
  return /^https?:\/\//i.test(url) ? url : undefined;
}

export function cut(text: string, max: number): string {
  const chars = [...text];
  return chars.length > max ? `${chars.slice(0, max).join('')}…` : text;
}

export function SlugCell({ slug, env }: { slug: string; env: LinkTableEnv }) {
  return (
    <span class="inline-flex items-center gap-1 whitespace-nowrap">
      <a href={`/${slug}`} target="_blank" rel="noopener" class="font-mono hover:underline">
        <span class="text-base-content/70">{`${env.shortKeyword}/`}</span>
        <span class="link-brand font-semibold">{slug}</span>
      </a>
      <CopyButton value={`${env.origin}/${slug}`} />
    </span>
  );
}

/**
 * Where a Renew button sits, sent with it so the answer re-renders that place: a row of one
 * of the tables, or the link's own page (docs/lifecycle.md#renewal).
 */
export type RenewFrom = 'dashboard' | 'tag' | 'admin' | 'detail';
export const RENEW_FROM: readonly RenewFrom[] = ['dashboard', 'tag', 'admin', 'detail'];

/** The one Renew action for an expired link; callers show it only to CanEdit viewers. */
export function RenewButton({ linkId, from, inPlace = true }: { linkId: string; from: RenewFrom; inPlace?: boolean }) {
  const action = `/dashboard/links/${linkId}/renew`;
  // Not in place: a plain post, answered with the page `from` names (where there is nothing to swap).
  const swap = inPlace
    ? {
        'hx-post': action,
        'hx-target': from === 'detail' ? '#link-detail' : `#link-${linkId}`,
        'hx-swap': 'outerHTML',
        'hx-disabled-elt': 'find button',
      }
    : {};
  return (
    <form method="post" action={action} {...swap} class="inline">
      <input type="hidden" name="from" value={from} />
      <button type="submit" class="btn btn-xs btn-outline">
        <Spinner />
        Renew
      </button>
    </form>
  );
}

/**
 * `archived`/`expired` win; otherwise `broken` for an active link whose destination fails
 * (docs/lifecycle.md#badges-and-the-admin-report). `renewFrom` offers Renew beside "expired"
 * to a viewer holding CanEdit; null never does.
 */
export function LifecycleBadges({ row, renewFrom }: { row: LinkRowData; renewFrom: RenewFrom | null }) {
  const { state, health, link } = row;
  if (state === 'archived') return <span class="badge badge-sm badge-ghost border-base-content/40">archived</span>;
  if (state === 'expired') {
    return (
      <span class="inline-flex items-center gap-1">
        <span class="badge badge-sm badge-warning">expired</span>
        {renewFrom !== null && row.caps.canEdit && <RenewButton linkId={link.id} from={renewFrom} />}
      </span>
    );
  }
  if (health?.status === 'broken') {
    return (
      <span class="badge badge-sm badge-error gap-1">
        <Icon name="warning" class="size-3" />
        broken
      </span>
    );
  }
  return null;
}

function IconLink({
  href,
  label,
  icon,
  hxGet,
  class: extra,
}: {
  href: string;
  label: string;
  icon: 'eye' | 'chart' | 'pencil' | 'trash';
  hxGet?: string;
  class?: string;
}) {
  return (
    <a
      href={href}
      class={`btn btn-ghost btn-xs btn-square tooltip tooltip-left${extra ? ` ${extra}` : ''}`}
      data-tip={label}
      aria-label={label}
      hx-get={hxGet}
      hx-target={hxGet ? '#modal' : undefined}
    >
      <Icon name={icon} class="size-4" />
    </a>
  );
}

function CapsActions({ row }: { row: LinkRowData }) {
  const { link, caps } = row;
  const base = `/dashboard/links/${link.id}`;
  return (
    <div class="flex justify-end gap-0.5">
      {caps.canView && <IconLink href={base} label="Details" icon="eye" />}
      {caps.canStats && <IconLink href={`${base}/stats`} label="Stats" icon="chart" class="hidden sm:inline-flex" />}
      {caps.canEdit && <IconLink href={`${base}/edit`} hxGet={`${base}/edit`} label="Edit" icon="pencil" />}
      {caps.canDelete && <IconLink href={`${base}/confirm-delete`} hxGet={`${base}/confirm-delete`} label="Delete" icon="trash" />}
    </div>
  );
}

function AdminActions({ row }: { row: LinkRowData }) {
  const base = `/admin/links/${row.link.id}`;
  return (
    <div class="flex justify-end gap-0.5">
      <a
        href={`${base}/edit`}
        hx-get={`${base}/edit`}
        hx-target={`#link-${row.link.id}`}
        hx-swap="outerHTML"
        class="btn btn-ghost btn-xs btn-square tooltip tooltip-left"
        data-tip="Edit"
        aria-label="Edit"
      >
        <Icon name="pencil" class="size-4" />
      </a>
      <IconLink href={`${base}/confirm-delete`} hxGet={`${base}/confirm-delete`} label="Delete" icon="trash" />
    </div>
  );
}

function OwnersCell({ link, mode, env }: { link: LinkView; mode: 'all' | 'primary'; env: LinkTableEnv }) {
  if (mode === 'all') return <span class="block min-w-32">{link.owners.map((o) => o.displayName).join(', ')}</span>;
  const primary = link.owners.find((o) => o.isPrimary);
  if (!primary) return <span class="text-base-content/70">—</span>;
  const mine = env.viewerId !== null && link.owners.some((o) => o.userId === env.viewerId);
  return (
    <span class="inline-flex items-center gap-1 whitespace-nowrap">
      <a class="link link-hover" href={`/u/${primary.displayNameSlug}`}>
        {primary.displayName}
      </a>
      {mine && <span class="badge badge-xs badge-accent">you</span>}
    </span>
  );
}

function TagChips({ link, linked }: { link: LinkView; linked: boolean }) {
  if (link.tags.length === 0) return <span class="text-base-content/70">—</span>;
  return (
    <span class="flex flex-wrap gap-1">
      {link.tags.map((t) =>
        linked ? (
          <a class="badge badge-sm badge-outline hover:bg-base-200" href={`/dashboard/tags/${t.slug}`}>
            {t.name}
          </a>
        ) : (
          <span class="badge badge-sm badge-outline">{t.name}</span>
        ),
      )}
    </span>
  );
}

export function LinkRow({ row, variant, env }: { row: LinkRowData; variant: LinkTableVariant; env: LinkTableEnv }) {
  const c = COLUMNS[variant];
  const { link } = row;
  const href = safeHref(link.url);
  const description = c.descriptionCut === null ? link.description : cut(link.description, c.descriptionCut);
  return (
    <tr id={`link-${link.id}`} class="hover:bg-base-200/60">
      <td>
        <SlugCell slug={link.slug} env={env} />
      </td>
      <td class="hidden sm:table-cell max-w-[12rem]">
        {href ? (
          <a href={href} target="_blank" rel="noopener noreferrer" class="link link-hover block truncate" title={link.url}>
            {link.url}
          </a>
        ) : (
          <span class="block truncate" title={link.url}>
            {link.url}
          </span>
        )}
      </td>
      {c.title && <td class="hidden md:table-cell max-w-[12rem] truncate">{link.title}</td>}
      {c.owners !== 'none' && (
        <td class="hidden md:table-cell">
          <OwnersCell link={link} mode={c.owners} env={env} />
        </td>
      )}
      {c.tags && (
        <td class={c.tagsClass}>
          <TagChips link={link} linked={variant === 'admin'} />
        </td>
      )}
      <td>
        <span class="flex flex-wrap items-center gap-1">
          <VisibilityBadge visibility={link.visibility} />
          {c.badges && <LifecycleBadges row={row} renewFrom={c.renew} />}
        </span>
      </td>
      <td class={`${c.descriptionClass} max-w-[18rem]`}>
        <span class="line-clamp-2 text-sm text-base-content/80">{description}</span>
      </td>
      <td class={`${c.createdClass} whitespace-nowrap text-sm`}>
        <LocalTime ms={link.createdAt} date />
      </td>
      {c.actions === 'caps' && (
        <td>
          <CapsActions row={row} />
        </td>
      )}
      {c.actions === 'admin' && (
        <td>
          <AdminActions row={row} />
        </td>
      )}
    </tr>
  );
}

export function LinkTableHead({ variant }: { variant: LinkTableVariant }) {
  const c = COLUMNS[variant];
  return (
    <thead>
      <tr>
        <th scope="col">Slug</th>
        <th scope="col" class="hidden sm:table-cell">
          URL
        </th>
        {c.title && (
          <th scope="col" class="hidden md:table-cell">
            Title
          </th>
        )}
        {c.owners !== 'none' && (
          <th scope="col" class="hidden md:table-cell">
            {c.owners === 'all' ? 'Owners' : 'Owner'}
          </th>
        )}
        {c.tags && (
          <th scope="col" class={c.tagsClass}>
            Tags
          </th>
        )}
        <th scope="col">Visibility</th>
        <th scope="col" class={c.descriptionClass}>
          Description
        </th>
        <th scope="col" class={c.createdClass}>
          Created
        </th>
        {c.actions !== 'none' && (
          <th scope="col" class="text-right">
            <span class="sr-only">Actions</span>
          </th>
        )}
      </tr>
    </thead>
  );
}

export function LinkTable({ rows, variant, env }: { rows: readonly LinkRowData[]; variant: LinkTableVariant; env: LinkTableEnv }) {
  return (
    <div class="overflow-x-auto rounded-box border border-base-300 bg-base-100">
      <table class="table table-sm md:table-md">
        <LinkTableHead variant={variant} />
        <tbody>
          {rows.map((row) => (
            <LinkRow row={row} variant={variant} env={env} />
          ))}
        </tbody>
      </table>
    </div>
  );
}
