import type { ComponentChildren } from 'preact';
import { asset } from './assets.js';
import type { PageContext } from './context.js';

interface LayoutProps {
  ctx: PageContext;
  title: string;
  children: ComponentChildren;
}

function NavLink({ href, path, exact, children }: { href: string; path: string; exact?: boolean; children: ComponentChildren }) {
  const active = path === href || (!exact && path.startsWith(`${href}/`));
  return (
    <li>
      <a href={href} class={active ? 'menu-active' : undefined} aria-current={active ? 'page' : undefined}>
        {children}
      </a>
    </li>
  );
}

function ThemeToggle() {
  return (
    <button type="button" class="btn btn-ghost btn-sm btn-square" data-theme-toggle aria-label="Toggle theme" title="Toggle theme">
      <span class="theme-icon-sun" aria-hidden="true">☀</span>
      <span class="theme-icon-moon" aria-hidden="true">☾</span>
    </button>
  );
}

function AnonymousNav({ ctx }: { ctx: PageContext }) {
  return (
    <header class="navbar bg-base-200 border-b border-base-300 px-4">
      <div class="flex-1">
        <a href="/" class="text-lg font-bold">Joe Links</a>
      </div>
      <nav class="flex items-center gap-2" aria-label="Main">
        <a href="/links" class={`btn btn-ghost btn-sm${ctx.path === '/links' ? ' btn-active' : ''}`}>Browse</a>
        <ThemeToggle />
        <a href="/auth/login" class="btn btn-primary btn-sm">Sign in</a>
      </nav>
    </header>
  );
}

function Sidebar({ ctx }: { ctx: PageContext }) {
  const user = ctx.user!;
  const isAdmin = user.role === 'admin';
  return (
    <aside class="w-full md:w-60 md:min-h-screen md:fixed md:inset-y-0 bg-base-200 border-r border-base-300 flex flex-col">
      <div class="p-4">
        <a href="/dashboard" class="text-lg font-bold">Joe Links</a>
      </div>
      <nav aria-label="Main" class="flex-1">
        <ul class="menu w-full">
          <NavLink href="/dashboard" path={ctx.path} exact>Dashboard</NavLink>
          <NavLink href="/dashboard/analytics" path={ctx.path}>Analytics</NavLink>
          <NavLink href="/dashboard/tags" path={ctx.path}>Tags</NavLink>
          <NavLink href="/links" path={ctx.path}>Browse</NavLink>
          {isAdmin && (
            <li>
              <details open={ctx.path.startsWith('/admin')}>
                <summary>Admin</summary>
                <ul>
                  <NavLink href="/admin" path={ctx.path} exact>Overview</NavLink>
                  <NavLink href="/admin/users" path={ctx.path}>Users</NavLink>
                  <NavLink href="/admin/links" path={ctx.path}>Links</NavLink>
                  <NavLink href="/admin/link-health" path={ctx.path}>Link Health</NavLink>
                  <NavLink href="/admin/keywords" path={ctx.path}>Keywords</NavLink>
                </ul>
              </details>
            </li>
          )}
        </ul>
      </nav>
      <div class="p-4 space-y-3">
        <a href="/dashboard/links/new" class="btn btn-primary w-full">New link</a>
        <details class="dropdown dropdown-top w-full">
          <summary class="btn btn-ghost w-full justify-start gap-2">
            <span class="avatar avatar-placeholder">
              <span class="bg-neutral text-neutral-content w-8 rounded-full">
                <span>{(user.displayName || user.email).slice(0, 1).toUpperCase()}</span>
              </span>
            </span>
            <span class="truncate">{user.displayName || user.email}</span>
            <span aria-hidden="true" class="ml-auto">▾</span>
          </summary>
          <ul class="menu dropdown-content bg-base-100 rounded-box w-full shadow">
            <li><button type="button" data-theme-toggle>Toggle theme</button></li>
            <li><a href="/dashboard/settings/tokens">API Tokens</a></li>
            <li>
              <form method="post" action="/auth/logout">
                <button type="submit" class="w-full text-left">Sign out</button>
              </form>
            </li>
          </ul>
        </details>
        <p class="text-xs opacity-70">
          joe-links · <a class="link" href="/api/docs/">API docs</a>
        </p>
      </div>
    </aside>
  );
}

/** The base layout of web-ui.md §4: sidebar when signed in, navbar otherwise. */
export function Layout({ ctx, title, children }: LayoutProps) {
  return (
    <html lang="en" data-theme={ctx.theme ?? undefined}>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${title} — Joe Links`}</title>
        <script src={asset('js/theme.js')}></script>
        <link rel="stylesheet" href={asset('css/app.css')} />
        <script src={asset('js/htmx.js')} defer></script>
        <script src={asset('js/app.js')} defer></script>
      </head>
      <body class="min-h-screen bg-base-100 text-base-content">
        <a href="#main" class="sr-only focus:not-sr-only">Skip to content</a>
        {ctx.user ? <Sidebar ctx={ctx} /> : <AnonymousNav ctx={ctx} />}
        <main id="main" class={ctx.user ? 'md:ml-60 p-4 md:p-8' : 'max-w-5xl mx-auto p-4 md:p-8'}>
          {children}
        </main>
        <div id="toast-area" class="toast toast-end" aria-live="polite"></div>
        <div id="modal"></div>
      </body>
    </html>
  );
}
