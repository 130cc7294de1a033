import type { ComponentChildren } from 'preact';
import { asset } from './assets.js';
import type { PageContext, ThemeChoice } from './context.js';
import { Icon, type IconName } from './partials/icons.js';
import { NotificationBell } from './partials/notificationBell.js';
import { CommandPalette, PaletteButton } from './partials/palette.js';
import { Avatar, ToastMessage } from './partials/ui.js';
import { APP_VERSION } from '../version.js';

interface LayoutProps {
  ctx: PageContext;
  title: string;
  children: ComponentChildren;
}

/**
 * HTMX settings that let it run under our Content-Security-Policy: no eval
 * (`hx-vals="js:…"`, trigger filters), no injected <style> (the indicator
 * styles are in app.css), no <script> execution from swapped content, and
 * requests only to our own origin. History snapshots are not kept in
 * localStorage (a page may show a secure link); going back reloads the page.
 */
export const HTMX_CONFIG = JSON.stringify({
  allowEval: false,
  allowScriptTags: false,
  includeIndicatorStyles: false,
  selfRequestsOnly: true,
  historyCacheSize: 0,
  refreshOnHistoryMiss: true,
  // DELETE carries its form fields (e.g. `link_action`) in the body, like POST and PUT.
  methodsThatUseUrlParams: ['get'],
  // Every element states its own target and swap: a form's hx-target must not leak into the
  // live checks of the inputs inside it.
  disableInheritance: true,
  // When a swap replaces an element that has an id, HTMX copies its `style` attribute over for
  // the settle step. Our markup has none, but a browser extension or an automation tool can add
  // one to an input, and re-applying it is an inline style the CSP refuses (a console error on
  // every form error and list swap). Nothing of ours animates through `style`.
  attributesToSettle: ['class', 'width', 'height'],
});

function NavLink({
  href,
  path,
  exact,
  icon,
  children,
}: {
  href: string;
  path: string;
  exact?: boolean;
  icon: IconName;
  children: ComponentChildren;
}) {
  // Highlight rule of docs/web-ui.md#layout: the exact path, or (non-exact items) anything below it.
  const active = path === href || (!exact && path.startsWith(`${href}/`));
  return (
    <li>
      <a href={href} class={active ? 'menu-active' : undefined} aria-current={active ? 'page' : undefined}>
        <Icon name={icon} class="size-5" />
        {children}
      </a>
    </li>
  );
}

const THEME_CHOICES: Array<[ThemeChoice, string, IconName]> = [
  ['system', 'System', 'monitor'],
  ['joe-light', 'Light', 'sun'],
  ['joe-dark', 'Dark', 'moon'],
];

/**
 * System / Light / Dark (docs/web-ui.md#theme). Without JavaScript each button posts the
 * choice and comes back to this page; with it, app.js applies the choice at once and
 * saves it in the background. The pressed button is the saved choice.
 */
function ThemeSwitch({ ctx, vertical = false }: { ctx: PageContext; vertical?: boolean }) {
  const chosen: ThemeChoice = ctx.theme ?? 'system';
  return (
    <form method="post" action="/dashboard/theme" class="m-0">
      <input type="hidden" name="back" value="1" />
      <div role="group" aria-label="Theme" class={`join${vertical ? ' join-vertical w-full' : ' w-full'}`}>
        {THEME_CHOICES.map(([value, label, icon]) => (
          <button
            type="submit"
            name="theme"
            value={value}
            class={`join-item btn btn-sm theme-choice${vertical ? ' justify-start' : ' flex-1 px-1'}`}
            aria-pressed={chosen === value ? 'true' : 'false'}
            data-theme-choice={value}
          >
            <Icon name={icon} class="size-4" />
            {label}
          </button>
        ))}
      </div>
    </form>
  );
}

/** Sun while the dark theme shows, moon while the light one does: the anonymous navbar's theme menu. */
function ThemeIcons() {
  return (
    <>
      <span class="theme-icon-sun">
        <Icon name="sun" class="size-5" />
      </span>
      <span class="theme-icon-moon">
        <Icon name="moon" class="size-5" />
      </span>
    </>
  );
}

function Brand({ href }: { href: string }) {
  return (
    <a href={href} class="inline-flex items-center gap-2 text-lg font-bold">
      <span class="rounded-field bg-primary text-primary-content p-1">
        <Icon name="link" class="size-5" />
      </span>
      Joe Links
    </a>
  );
}

function AnonymousShell({ ctx, children }: { ctx: PageContext; children: ComponentChildren }) {
  const browsing = ctx.path === '/links' || ctx.path.startsWith('/links/');
  return (
    <>
      <header class="navbar bg-base-200 border-b border-base-300 px-4 gap-2">
        <div class="flex-1">
          <Brand href="/" />
        </div>
        <nav class="flex items-center gap-1 sm:gap-2" aria-label="Main">
          <a href="/links" class={`btn btn-ghost btn-sm${browsing ? ' btn-active' : ''}`} aria-current={browsing ? 'page' : undefined}>
            Browse
          </a>
          <details class="dropdown dropdown-end theme-menu">
            <summary class="btn btn-ghost btn-sm btn-square" aria-label="Theme" title="Theme">
              <ThemeIcons />
            </summary>
            <div class="dropdown-content z-40 mt-2 w-36 rounded-box border border-base-300 bg-base-100 p-2 shadow">
              <ThemeSwitch ctx={ctx} vertical />
            </div>
          </details>
          <a href="/auth/login" class="btn btn-primary btn-sm">
            Sign in
          </a>
        </nav>
      </header>
      <main id="main" class="max-w-5xl mx-auto p-4 md:p-8">
        {children}
      </main>
    </>
  );
}

function Sidebar({ ctx }: { ctx: PageContext }) {
  const user = ctx.user!;
  const name = user.displayName || user.email;
  return (
    <aside class="bg-base-200 min-h-full w-64 flex flex-col border-r border-base-300">
      <div class="p-4 flex items-center justify-between gap-2">
        <Brand href="/dashboard" />
        <NotificationBell id="notification-bell" unread={ctx.unreadNotifications ?? 0} />
      </div>
      <div class="px-4 pb-2">
        <PaletteButton />
      </div>
      <nav aria-label="Main" class="flex-1">
        <ul class="menu w-full gap-0.5">
          <NavLink href="/dashboard" path={ctx.path} exact icon="home">
            Dashboard
          </NavLink>
          <NavLink href="/dashboard/analytics" path={ctx.path} icon="chart">
            Analytics
          </NavLink>
          <NavLink href="/dashboard/tags" path={ctx.path} icon="tag">
            Tags
          </NavLink>
          <NavLink href="/dashboard/groups" path={ctx.path} icon="users">
            Groups
          </NavLink>
          <NavLink href="/links" path={ctx.path} icon="globe">
            Browse
          </NavLink>
          {user.role === 'admin' && (
            <li>
              <details open={ctx.path === '/admin' || ctx.path.startsWith('/admin/')}>
                <summary>
                  <Icon name="shield" class="size-5" />
                  Admin
                </summary>
                <ul>
                  <NavLink href="/admin" path={ctx.path} exact icon="grid">
                    Overview
                  </NavLink>
                  <NavLink href="/admin/users" path={ctx.path} icon="users">
                    Users
                  </NavLink>
                  <NavLink href="/admin/links" path={ctx.path} icon="link">
                    Links
                  </NavLink>
                  <NavLink href="/admin/link-health" path={ctx.path} icon="pulse">
                    Link Health
                  </NavLink>
                  <NavLink href="/admin/audit" path={ctx.path} icon="clock">
                    Audit
                  </NavLink>
                  <NavLink href="/admin/keywords" path={ctx.path} icon="terminal">
                    Keywords
                  </NavLink>
                  <NavLink href="/admin/webhooks" path={ctx.path} icon="bolt">
                    Webhooks
                  </NavLink>
                </ul>
              </details>
            </li>
          )}
        </ul>
      </nav>
      <div class="p-4 space-y-3 border-t border-base-300">
        <ThemeSwitch ctx={ctx} />
        <a href="/dashboard/links/new" hx-get="/dashboard/links/new" hx-target="#modal" class="btn btn-primary w-full">
          <Icon name="plus" class="size-5" />
          New link
        </a>
        <details class="user-menu">
          <summary class="btn btn-ghost w-full justify-start gap-2 px-2 font-normal">
            <Avatar name={name} />
            <span class="truncate">{name}</span>
            <span class="ml-auto user-menu-chevron">
              <Icon name="chevronUp" class="size-4" />
            </span>
          </summary>
          <ul class="menu w-full bg-base-100 rounded-box mt-2 border border-base-300">
            <li>
              <a href="/dashboard/settings/tokens" aria-current={ctx.path.startsWith('/dashboard/settings/tokens') ? 'page' : undefined}>
                <Icon name="key" class="size-5" />
                API Tokens
              </a>
            </li>
            <li>
              <a
                href="/dashboard/settings/notifications"
                aria-current={ctx.path.startsWith('/dashboard/settings/notifications') ? 'page' : undefined}
              >
                <Icon name="bell" class="size-5" />
                Notification settings
              </a>
            </li>
            <li>
              <form method="post" action="/auth/logout" class="p-0">
                <button type="submit" class="w-full flex items-center gap-2 px-3 py-1.5 text-left">
                  <Icon name="logout" class="size-5" />
                  Sign out
                </button>
              </form>
            </li>
          </ul>
        </details>
        <p class="text-xs text-base-content/70">
          {`joe-links v${APP_VERSION}`} ·{' '}
          <a class="link" href="/api/docs/">
            API docs
          </a>
        </p>
      </div>
    </aside>
  );
}

function SignedInShell({ ctx, children }: { ctx: PageContext; children: ComponentChildren }) {
  return (
    <div class="drawer md:drawer-open">
      <input id="nav-drawer" type="checkbox" class="drawer-toggle" aria-label="Show navigation" />
      <div class="drawer-content flex flex-col min-h-screen min-w-0">
        <header class="navbar md:hidden bg-base-200 border-b border-base-300 sticky top-0 z-30 gap-2">
          <label
            for="nav-drawer"
            class="btn btn-ghost btn-square"
            aria-label="Open navigation"
            role="button"
            tabindex={0}
            data-drawer-toggle
          >
            <Icon name="menu" class="size-6" />
          </label>
          <Brand href="/dashboard" />
          <div class="ml-auto flex items-center gap-1">
            <PaletteButton compact />
            <NotificationBell id="notification-bell-mobile" unread={ctx.unreadNotifications ?? 0} />
          </div>
        </header>
        <main id="main" class="flex-1 w-full max-w-7xl mx-auto p-4 md:p-8">
          {children}
        </main>
      </div>
      <div class="drawer-side z-40">
        <label for="nav-drawer" class="drawer-overlay" aria-hidden="true"></label>
        <Sidebar ctx={ctx} />
      </div>
    </div>
  );
}

/** The base layout of docs/web-ui.md#layout: sidebar when signed in, navbar otherwise. */
export function Layout({ ctx, title, children }: LayoutProps) {
  return (
    <html lang="en" data-theme={ctx.theme ?? undefined}>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="htmx-config" content={HTMX_CONFIG} />
        <title>{`${title} — Joe Links`}</title>
        <script src={asset('js/theme.js')}></script>
        <link rel="icon" type="image/svg+xml" href={asset('img/favicon.svg')} />
        {/* The instance as a browser search engine (docs/usage.md#opensearch). */}
        <link rel="search" type="application/opensearchdescription+xml" title={`${ctx.shortKeyword} links`} href="/_/opensearch.xml" />
        <link rel="stylesheet" href={asset('css/app.css')} />
        <script src={asset('js/htmx.js')} defer></script>
        <script src={asset('js/app.js')} defer></script>
        <script src={asset('js/undo-delete.js')} defer></script>
        <script src={asset('js/slug-field.js')} defer></script>
        <script src={asset('js/localtime.js')} defer></script>
        <script src={asset('js/shortcuts.js')} defer></script>
      </head>
      {/* Where `/` leads from a page without a search box (docs/web-ui.md#keyboard-shortcuts). */}
      <body class="min-h-screen bg-base-100 text-base-content" data-search-page={ctx.user ? '/dashboard' : '/links'}>
        <a href="#main" class="skip-link">
          Skip to content
        </a>
        {ctx.user ? <SignedInShell ctx={ctx}>{children}</SignedInShell> : <AnonymousShell ctx={ctx}>{children}</AnonymousShell>}
        <div id="toast-area" class="toast toast-end toast-bottom z-50" aria-live="polite">
          {ctx.flash && <ToastMessage level={ctx.flash.level} message={ctx.flash.message} />}
        </div>
        <div id="modal"></div>
        {ctx.user && <CommandPalette user={ctx.user} shortKeyword={ctx.shortKeyword} />}
      </body>
    </html>
  );
}
