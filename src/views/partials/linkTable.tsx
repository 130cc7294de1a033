import type { LinkCaps } from '../../domain/caps.js';
import type { LinkHealth } from '../../domain/health.js';
import type { LifecycleState } from '../../domain/lifecycle.js';
import type { LinkActivity } from '../../store/listActivity.js';
import type { LinkView } from '../../store/types.js';
import { hasPlaceholders } from '../../domain/url.js';
import { isGolinkTemplate } from '../../domain/golinkTemplate.js';
import { LocalTime } from './localTime.js';
import { Icon, type IconName } from './icons.js';
import { Sparkline } from './sparkline.js';
import { CopyButton, Spinner, undoableDelete, VisibilityBadge } from './ui.js';

/**
 * The one link list of docs/web-ui.md#link-tables, on every page that lists links: the
 * dashboard, browse, profiles, tag pages and /admin/links. Every list has the same columns —
 * the link (slug, title, destination), status badges, clicks of the last 30 days with their
 * sparkline, last clicked, actions — and a variant may only add the owner column and the
 * admin's own actions. At 1024 px and wider it is a fixed-layout table whose long text is cut
 * with an ellipsis (the full text in `title=`); narrower, each row is a card whose tap opens
 * the link's page and whose actions sit in a menu. Every action is gated by the row's LinkCaps,
 * computed by the caller through `store.access.capsMany` (never re-derived here).
 */

/** What a row's badges need; the link page shows the same badges. */
export interface RowState {
  link: LinkView;
  caps: LinkCaps;
  state: LifecycleState;
  /** Only for viewers holding CanView; null hides health. */
  health: LinkHealth | null;
}

export interface LinkRowData extends RowState {
  /** Click figures, only for viewers holding CanStats (docs/analytics.md#who-sees-what); null shows a dash. */
  activity: LinkActivity | null;
  /** The names of the groups that own the link, by name; only for signed-in viewers, who may read every group. */
  ownerGroups?: readonly string[];
}

export type LinkTableVariant = 'dashboard' | 'tag' | 'admin' | 'public';

export interface LinkTableEnv {
  shortKeyword: string;
  /** `scheme://host` of the request, for absolute copy URLs. */
  origin: string;
  viewerId: string | null;
}

interface Variant {
  /** The owner column: lists of other people's links, never one's own dashboard. */
  owner: boolean;
  /** Edit and Delete through /admin/links (inline edit) rather than the link's own forms. */
  adminActions: boolean;
  /** The Renew button's place for expired rows, or null for none. */
  renew: RenewFrom | null;
  /** The "broken" badge; the public browser and profiles never show health (docs/lifecycle.md#badges-and-the-admin-report). */
  health: boolean;
}

const VARIANTS: Record<LinkTableVariant, Variant> = {
  dashboard: { owner: false, adminActions: false, renew: 'dashboard', health: true },
  tag: { owner: true, adminActions: false, renew: 'tag', health: true },
  admin: { owner: true, adminActions: true, renew: 'admin', health: true },
  public: { owner: true, adminActions: false, renew: null, health: false },
};

/** Columns of a variant's table; the admin's inline edit row spans them all. */
export function columnCount(variant: LinkTableVariant): number {
  return VARIANTS[variant].owner ? 7 : 6;
}

/**
 * Destinations are http(s) by validation; anything else stored long ago is shown as text, never
 * linked. A template (`$ticket`, golink's `{{.Path}}`) is no address to open either: its link
 * would lead to the literal placeholder.
 */
export function safeHref(url: string): string | undefined {
  return /^https?:\/\//i.test(url) && !hasPlaceholders(url) && !isGolinkTemplate(url) ? url : undefined;
}

export function cut(text: string, max: number): string {
  const chars = [...text];
  return chars.length > max ? `${chars.slice(0, max).join('')}…` : text;
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
export function LifecycleBadges({ row, renewFrom }: { row: RowState; renewFrom: RenewFrom | null }) {
  const { state, health, link } = row;
  if (state === 'archived') return <span class="badge badge-sm badge-ghost border-base-content/40">archived</span>;
  if (state === 'expired') {
    return (
      <span class="inline-flex flex-wrap items-center gap-1">
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

interface Action {
  label: string;
  icon: IconName;
  href: string;
  /** Fetched over HTMX into this target (`#modal`, or the row for the admin's inline edit). */
  hxTarget?: string;
  /** An outerHTML swap of the target (the admin's inline edit). */
  replace?: boolean;
  /** Delete: sent after the Undo toast runs out (docs/web-ui.md#deleting-with-undo). */
  undoable?: ReturnType<typeof undoableDelete>;
}

/** The row's actions, by its capabilities: Details, Stats, Edit, Delete. */
function actionsOf(row: LinkRowData, v: Variant, name: string): Action[] {
  const { link, caps } = row;
  const base = `/dashboard/links/${link.id}`;
  const admin = `/admin/links/${link.id}`;
  const out: Action[] = [];
  if (caps.canView) out.push({ label: 'Details', icon: 'eye', href: base });
  if (caps.canStats) out.push({ label: 'Stats', icon: 'chart', href: `${base}/stats` });
  if (caps.canEdit) {
    out.push(
      v.adminActions
        ? { label: 'Edit', icon: 'pencil', href: `${admin}/edit`, hxTarget: `#link-${link.id}`, replace: true }
        : { label: 'Edit', icon: 'pencil', href: `${base}/edit`, hxTarget: '#modal' },
    );
  }
  if (caps.canDelete) {
    const endpoint = v.adminActions ? admin : base;
    out.push({
      label: 'Delete',
      icon: 'trash',
      href: `${endpoint}/confirm-delete`,
      undoable: undoableDelete({ endpoint, name, hide: `link-${link.id}` }),
    });
  }
  return out;
}

/** How an action is taken with JavaScript: over HTMX, or by the Undo script. */
function enhancementOf(a: Action) {
  if (a.undoable) return a.undoable;
  if (!a.hxTarget) return {};
  return { 'hx-get': a.href, 'hx-target': a.hxTarget, ...(a.replace ? { 'hx-swap': 'outerHTML' } : {}) };
}

/**
 * Wide screens: one icon button per action, each named by its tooltip and label. Below 1280 px
 * their column holds two a line, so they wrap into a square within the row's three lines of text
 * and leave the link's column the room for its slug and title (docs/web-ui.md#link-tables).
 */
function ActionIcons({ actions }: { actions: readonly Action[] }) {
  return (
    <div class="hidden lg:flex flex-wrap justify-end gap-0.5">
      {actions.map((a) => (
        <a
          href={a.href}
          class="btn btn-ghost btn-xs btn-square tooltip tooltip-left"
          data-tip={a.label}
          aria-label={a.label}
          {...enhancementOf(a)}
        >
          <Icon name={a.icon} class="size-4" />
        </a>
      ))}
    </div>
  );
}

/**
 * Cards: the same actions in a menu. Open, it rises above the cards after it (`open:z-40`), whose
 * own menu buttons would otherwise sit over its choices; app.js closes it on Escape, a tap
 * outside and a choice.
 */
function ActionMenu({ actions, name }: { actions: readonly Action[]; name: string }) {
  return (
    <details class="dropdown dropdown-end relative z-10 open:z-40 lg:hidden" data-menu="">
      <summary class="btn btn-ghost btn-sm btn-square" aria-label={`Actions for ${name}`}>
        <Icon name="dots" class="size-5" />
      </summary>
      <ul class="dropdown-content menu z-20 w-40 rounded-box border border-base-300 bg-base-100 p-1 shadow">
        {actions.map((a) => (
          <li>
            <a href={a.href} {...enhancementOf(a)}>
              <Icon name={a.icon} class="size-4" />
              {a.label}
            </a>
          </li>
        ))}
      </ul>
    </details>
  );
}

/** Slug (never broken inside a word), title and destination, each cut to one line with the full text in `title=`. */
function LinkCell({ row, env }: { row: LinkRowData; env: LinkTableEnv }) {
  const { link } = row;
  const short = `${env.shortKeyword}/${link.slug}`;
  const href = safeHref(link.url);
  // On a card each link is a target of its own, 24 px high at least (WCAG 2.5.8); a tap on the
  // card around them opens the link's page (app.js, `data-card-href` on the row).
  return (
    <div class="min-w-0">
      <div class="flex min-w-0 items-center gap-1">
        <a
          href={`/${link.slug}`}
          target="_blank"
          rel="noopener"
          class="slug-name font-mono text-sm hover:underline max-lg:min-h-6 max-lg:items-center"
          title={short}
        >
          <span class="text-base-content/70">{`${env.shortKeyword}/`}</span>
          <span class="link-brand font-semibold">{link.slug}</span>
        </a>
        <span class="relative z-10 shrink-0">
          <CopyButton value={`${env.origin}/${link.slug}`} />
        </span>
      </div>
      {link.title !== '' && (
        <p class="truncate text-sm" title={link.title}>
          {link.title}
        </p>
      )}
      {href ? (
        <a
          href={href}
          target="_blank"
          rel="noopener noreferrer"
          class="block truncate text-xs text-base-content/70 hover:underline max-lg:max-w-fit max-lg:leading-6"
          title={link.url}
        >
          {link.url}
        </a>
      ) : (
        <p class="truncate text-xs text-base-content/70" title={link.url}>
          {link.url}
        </p>
      )}
    </div>
  );
}

/** How many owning groups a row names before "+n". */
const GROUP_BADGES = 2;

/** The groups that own a row's link, each a badge leading to its page (docs/web-ui.md#link-tables). */
export function GroupBadges({ names }: { names: readonly string[] }) {
  if (names.length === 0) return null;
  const shown = names.slice(0, GROUP_BADGES);
  const more = names.length - shown.length;
  return (
    <>
      {shown.map((n) => (
        <a
          href={`/dashboard/groups/${n}`}
          class="relative z-10 badge badge-sm badge-secondary max-w-full gap-1"
          title={`Owned by the group ${n}`}
        >
          <Icon name="users" class="size-3 shrink-0" />
          <span class="sr-only">Owned by the group </span>
          <span class="truncate">{n}</span>
        </a>
      ))}
      {more > 0 && (
        <span class="badge badge-sm badge-ghost border-base-content/40" title={`Also owned by ${names.slice(GROUP_BADGES).join(', ')}`}>
          {`+${more} ${more === 1 ? 'group' : 'groups'}`}
        </span>
      )}
    </>
  );
}

function OwnerCell({ link, env }: { link: LinkView; env: LinkTableEnv }) {
  const primary = link.owners.find((o) => o.isPrimary) ?? link.owners[0];
  if (!primary) return <span class="text-base-content/70">—</span>;
  const others = link.owners.length - 1;
  const mine = env.viewerId !== null && link.owners.some((o) => o.userId === env.viewerId);
  const names = link.owners.map((o) => o.displayName).join(', ');
  return (
    <span class="flex min-w-0 items-center gap-1" title={names}>
      <span class="lg:sr-only">Owner:</span>
      <a class="relative z-10 min-w-0 max-lg:leading-6 truncate link link-hover" href={`/u/${primary.displayNameSlug}`}>
        {primary.displayName}
      </a>
      {others > 0 && <span class="shrink-0 text-xs text-base-content/70">{`+${others}`}</span>}
      {mine && <span class="badge badge-xs badge-accent shrink-0">you</span>}
    </span>
  );
}

/** A figure the viewer may not see (no CanStats): a dash, named for screen readers. */
function Withheld({ what }: { what: string }) {
  return (
    <span class="text-base-content/70">
      <span aria-hidden="true">—</span>
      <span class="sr-only">{`${what} not shown`}</span>
    </span>
  );
}

function ClicksCell({ activity }: { activity: LinkActivity | null }) {
  if (activity === null) return <Withheld what="Clicks" />;
  return (
    <span class="flex items-center gap-2">
      <span class="tabular-nums">
        {activity.clicks}
        <span class="lg:sr-only">{activity.clicks === 1 ? ' click' : ' clicks'}</span>
      </span>
      <Sparkline counts={activity.daily} />
    </span>
  );
}

function LastClickedCell({ activity }: { activity: LinkActivity | null }) {
  if (activity === null) return <Withheld what="Last click" />;
  const at = activity.lastClickedAt;
  return (
    <span class="whitespace-nowrap text-sm">
      <span class="lg:sr-only">Last clicked </span>
      {at === null ? <span class="text-base-content/70">never</span> : <LocalTime ms={at} date />}
    </span>
  );
}

/**
 * Cell classes: a table cell from 1024 px, an inline piece of the card below it. Below 1280 px
 * the cells sit a little closer, room the link's column gets (docs/web-ui.md#link-tables).
 */
const CELL = 'max-lg:border-0 max-lg:p-0 lg:px-1.5 xl:px-2';
/** A header cell, spaced as its column's cells. */
const HEAD = 'px-1.5 xl:px-2';

/**
 * Whether the list has its click columns: an anonymous visitor may see no link's figures
 * (docs/analytics.md#who-sees-what), so columns of dashes would say nothing.
 */
const hasFigures = (env: LinkTableEnv): boolean => env.viewerId !== null;

export function LinkRow({ row, variant, env }: { row: LinkRowData; variant: LinkTableVariant; env: LinkTableEnv }) {
  const v = VARIANTS[variant];
  const figures = hasFigures(env);
  const { link } = row;
  const name = `${env.shortKeyword}/${link.slug}`;
  const actions = actionsOf(row, v, name);
  return (
    <tr
      id={`link-${link.id}`}
      class="relative hover:bg-base-200/60 max-lg:flex max-lg:flex-wrap max-lg:items-center max-lg:gap-x-3 max-lg:gap-y-1 max-lg:rounded-box max-lg:border max-lg:border-base-300 max-lg:bg-base-100 max-lg:p-3"
      data-link-row=""
      data-card-href={row.caps.canView ? `/dashboard/links/${link.id}` : undefined}
    >
      <td class={`${CELL} max-lg:block max-lg:w-[calc(100%-3rem)] max-lg:grow`}>
        <LinkCell row={row} env={env} />
      </td>
      <td class={`${CELL} max-lg:order-1 max-lg:block max-lg:w-full`}>
        <span class="flex flex-wrap items-center gap-1">
          <VisibilityBadge visibility={link.visibility} />
          <LifecycleBadges row={v.health ? row : { ...row, health: null }} renewFrom={v.renew} />
          <GroupBadges names={row.ownerGroups ?? []} />
        </span>
      </td>
      {v.owner && (
        <td class={`${CELL} max-lg:order-4 max-lg:block max-lg:min-w-0 max-lg:text-sm`}>
          <OwnerCell link={link} env={env} />
        </td>
      )}
      {figures && (
        <td class={`${CELL} max-lg:order-2 max-lg:block max-lg:text-sm`}>
          <ClicksCell activity={row.activity} />
        </td>
      )}
      {figures && (
        <td class={`${CELL} max-lg:order-3 max-lg:block`}>
          <LastClickedCell activity={row.activity} />
        </td>
      )}
      <td class={`${CELL} max-lg:block max-lg:w-9 max-lg:self-start`}>
        {actions.length > 0 && (
          <>
            <ActionIcons actions={actions} />
            <ActionMenu actions={actions} name={name} />
          </>
        )}
      </td>
    </tr>
  );
}

/**
 * The columns' widths; the link's column takes the rest. From 1280 px each has room to spare.
 * Below it (the sidebar beside the list at 1024 px) they shrink to what they hold — the owner's
 * name, a four-digit count beside its sparkline, the widest date, the action icons two a line —
 * so a 16-character slug and its title show whole (docs/web-ui.md#link-tables).
 */
function LinkTableHead({ variant, figures }: { variant: LinkTableVariant; figures: boolean }) {
  const v = VARIANTS[variant];
  return (
    <thead class="max-lg:hidden">
      <tr>
        <th scope="col" class={HEAD}>
          Link
        </th>
        <th scope="col" class={`w-20 ${HEAD} xl:w-24`}>
          Status
        </th>
        {v.owner && (
          <th scope="col" class={`w-[6.5rem] ${HEAD} xl:w-32`}>
            Owner
          </th>
        )}
        {figures && (
          <th scope="col" class={`w-[6.75rem] ${HEAD} whitespace-normal leading-tight xl:w-28`}>
            Clicks (30 days)
          </th>
        )}
        {figures && (
          <th scope="col" class={`w-28 ${HEAD}`}>
            Last clicked
          </th>
        )}
        <th scope="col" class={`w-16 ${HEAD} text-right xl:w-30`}>
          <span class="sr-only">Actions</span>
        </th>
      </tr>
    </thead>
  );
}

export function LinkTable({ rows, variant, env }: { rows: readonly LinkRowData[]; variant: LinkTableVariant; env: LinkTableEnv }) {
  return (
    <div class="lg:rounded-box lg:border lg:border-base-300 lg:bg-base-100">
      <table class="table table-sm w-full max-lg:block lg:table-fixed" data-link-list={variant}>
        {!hasFigures(env) && <caption class="sr-only">Clicks not shown: sign in to see the click figures of the links you own.</caption>}
        <LinkTableHead variant={variant} figures={hasFigures(env)} />
        <tbody class="max-lg:flex max-lg:flex-col max-lg:gap-3">
          {rows.map((row) => (
            <LinkRow row={row} variant={variant} env={env} />
          ))}
        </tbody>
      </table>
    </div>
  );
}
