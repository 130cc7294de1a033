import type { User } from '../../store/types.js';
import { Icon, type IconName } from './icons.js';

/**
 * The command palette of docs/web-ui.md#command-palette: one field that finds links by name or
 * title, offers to create the name typed, and lists the app's pages. The dialog and the pages are
 * rendered here; static/js/palette.js opens it (Ctrl-K, ⌘-K, the header's button), filters the
 * pages, asks `/_/palette` for the links and moves through the options. Without JavaScript the
 * button is a link to the dashboard's search.
 */

export interface PalettePage {
  label: string;
  href: string;
  icon: IconName;
  /** More words the page is found by. */
  words?: string;
}

/** The pages the palette lists for this user, in the sidebar's order; admin pages for admins only. */
export function palettePages(user: User): PalettePage[] {
  const pages: PalettePage[] = [
    { label: 'My links', href: '/dashboard', icon: 'home', words: 'dashboard home search' },
    { label: 'New link', href: '/dashboard/links/new', icon: 'plus', words: 'create add' },
    { label: 'Import links', href: '/dashboard/links/import', icon: 'download', words: 'upload csv' },
    { label: 'Shared with me', href: '/dashboard?filter=shared', icon: 'users' },
    { label: 'Analytics', href: '/dashboard/analytics', icon: 'chart', words: 'stats clicks' },
    { label: 'Tags', href: '/dashboard/tags', icon: 'tag' },
    { label: 'Groups', href: '/dashboard/groups', icon: 'users', words: 'teams' },
    { label: 'Browse public links', href: '/links', icon: 'globe' },
    { label: 'Notifications', href: '/notifications', icon: 'bell' },
    { label: 'API tokens', href: '/dashboard/settings/tokens', icon: 'key', words: 'settings' },
    { label: 'Notification settings', href: '/dashboard/settings/notifications', icon: 'bell', words: 'settings email' },
    { label: 'API docs', href: '/api/docs/', icon: 'terminal', words: 'openapi swagger rest' },
  ];
  if (user.role === 'admin') {
    pages.push(
      { label: 'Admin overview', href: '/admin', icon: 'grid', words: 'dashboard' },
      { label: 'Admin: users', href: '/admin/users', icon: 'users', words: 'people' },
      { label: 'Admin: all links', href: '/admin/links', icon: 'link' },
      { label: 'Admin: link health', href: '/admin/link-health', icon: 'pulse', words: 'broken' },
      { label: 'Admin: audit', href: '/admin/audit', icon: 'clock', words: 'history events' },
      { label: 'Admin: keywords', href: '/admin/keywords', icon: 'terminal' },
      { label: 'Admin: webhooks', href: '/admin/webhooks', icon: 'bolt' },
    );
  }
  return pages;
}

/** The button that opens the palette: in the sidebar, and (compact) in the phone header. */
export function PaletteButton({ compact = false }: { compact?: boolean }) {
  // Without JavaScript it leads to the dashboard's search, which finds links as the palette does.
  return compact ? (
    <a
      href="/dashboard#dashboard-search"
      class="btn btn-ghost btn-square"
      data-palette-open
      aria-label="Search and jump"
      aria-haspopup="dialog"
    >
      <Icon name="search" class="size-6" />
    </a>
  ) : (
    <a
      href="/dashboard#dashboard-search"
      class="btn btn-sm w-full justify-start gap-2 font-normal"
      data-palette-open
      aria-haspopup="dialog"
      aria-keyshortcuts="Control+K Meta+K"
    >
      <Icon name="search" class="size-4" />
      <span>Search and jump</span>
      <kbd class="kbd kbd-sm ml-auto" aria-hidden="true" data-palette-keys>
        Ctrl K
      </kbd>
    </a>
  );
}

/** One option of the list: a link found, the create offer, or a page. */
function Option({
  id,
  href,
  icon,
  label,
  hint,
  kind,
}: {
  id: string;
  href: string;
  icon: IconName;
  label: string;
  hint: string;
  kind: string;
}) {
  return (
    <li id={id} role="option" aria-selected="false" class="palette-option" data-palette-option={kind} data-href={href}>
      <Icon name={icon} class="size-4 shrink-0 opacity-70" />
      <span class="min-w-0 flex-1 truncate" data-palette-label>
        {label}
      </span>
      <span class="shrink-0 text-xs text-base-content/70">{hint}</span>
    </li>
  );
}

/** The dialog, closed; rendered once per full page for a signed-in user. */
export function CommandPalette({ user, shortKeyword }: { user: User; shortKeyword: string }) {
  return (
    <dialog id="command-palette" class="modal modal-top sm:modal-middle" aria-labelledby="palette-title" data-short-keyword={shortKeyword}>
      <div class="modal-box palette-box p-0">
        <h2 id="palette-title" class="sr-only">
          Search and jump
        </h2>
        <div class="border-b border-base-300 p-3">
          <div class="input w-full">
            <Icon name="search" class="size-5 opacity-70" />
            <input
              id="palette-input"
              type="text"
              role="combobox"
              aria-label="Find a link or a page"
              aria-expanded="true"
              aria-controls="palette-list"
              aria-autocomplete="list"
              placeholder="Find a link or a page…"
              autocomplete="off"
              spellcheck={false}
            />
          </div>
        </div>
        <p id="palette-status" class="sr-only" aria-live="polite"></p>
        <ul id="palette-list" role="listbox" aria-label="Links and pages" class="palette-list">
          {palettePages(user).map((p, i) => (
            <li
              id={`palette-page-${i}`}
              role="option"
              aria-selected="false"
              class="palette-option"
              data-palette-option="page"
              data-href={p.href}
              data-words={`${p.label} ${p.words ?? ''}`.toLowerCase()}
            >
              <Icon name={p.icon} class="size-4 shrink-0 opacity-70" />
              <span class="min-w-0 flex-1 truncate">{p.label}</span>
              <span class="shrink-0 text-xs text-base-content/70">Page</span>
            </li>
          ))}
          <Option
            id="palette-create"
            href="/dashboard/links/new"
            icon="plus"
            label={`Create ${shortKeyword}/…`}
            hint="New link"
            kind="create"
          />
        </ul>
        <p class="border-t border-base-300 px-4 py-2 text-xs text-base-content/70 hidden sm:block">
          ↑ ↓ to move · Enter to open · Esc to close
        </p>
      </div>
      <form method="dialog" class="modal-backdrop">
        <button type="submit" tabindex={-1}>
          Close
        </button>
      </form>
    </dialog>
  );
}

/** The links the palette found for the text typed: options that open each link's page (`go/name+`). */
export function PaletteLinkOptions({
  found,
  shortKeyword,
}: {
  found: ReadonlyArray<{ slug: string; title: string }>;
  shortKeyword: string;
}) {
  return (
    <>
      {found.map((l, i) => (
        <Option
          id={`palette-link-${i}`}
          href={`/${l.slug}+`}
          icon="link"
          label={l.title ? `${shortKeyword}/${l.slug} — ${l.title}` : `${shortKeyword}/${l.slug}`}
          hint="Link"
          kind="link"
        />
      ))}
    </>
  );
}
