import type { ComponentChildren } from 'preact';
import type { Visibility } from '../../domain/caps.js';
import { Icon, type IconName } from './icons.js';

/** Small building blocks every page shares, so spacing and wording stay consistent. */

export function PageHeader({
  title,
  subtitle,
  actions,
  back,
}: {
  title: ComponentChildren;
  subtitle?: ComponentChildren;
  actions?: ComponentChildren;
  back?: { href: string; label: string };
}) {
  return (
    <header class="mb-6 space-y-2">
      {back && (
        <a href={back.href} class="link link-hover text-sm inline-flex items-center gap-1 opacity-80">
          <Icon name="arrowLeft" class="size-4" />
          {back.label}
        </a>
      )}
      <div class="flex flex-wrap items-center justify-between gap-3">
        <div class="min-w-0">
          <h1 class="text-2xl font-bold break-words">{title}</h1>
          {subtitle && <p class="text-sm text-base-content/70 mt-1">{subtitle}</p>}
        </div>
        {actions && <div class="flex flex-wrap items-center gap-2">{actions}</div>}
      </div>
    </header>
  );
}

export function EmptyState({
  icon = 'link',
  title,
  children,
  action,
}: {
  icon?: IconName;
  title: string;
  children?: ComponentChildren;
  action?: ComponentChildren;
}) {
  return (
    <div class="flex flex-col items-center text-center gap-3 py-12 px-4 rounded-box border border-dashed border-base-300">
      <span class="rounded-full bg-base-200 p-3">
        <Icon name={icon} class="size-6" />
      </span>
      <h2 class="text-lg font-semibold">{title}</h2>
      {children && <p class="text-base-content/70 max-w-md">{children}</p>}
      {action}
    </div>
  );
}

export type ToastLevel = 'success' | 'error' | 'info';

/** One toast as it sits in `#toast-area` (a no-JavaScript flash, docs/web-ui.md#feedback); the page script removes it after a few seconds. */
export function ToastMessage({ level, message }: { level: ToastLevel; message: string }) {
  return (
    <div class={`alert alert-${level} shadow-md`} role={level === 'error' ? 'alert' : 'status'} data-toast>
      <Icon name={level === 'error' ? 'warning' : 'check'} class="size-5 shrink-0" />
      <span>{message}</span>
    </div>
  );
}

/**
 * A modal fragment for `#modal`. It is a native <dialog>: the page script
 * opens it with showModal(), which makes the rest of the page inert; Esc, the
 * backdrop and every `[data-modal-close]` close it, and focus returns to the
 * control that opened it.
 */
export function Modal({ title, children, wide }: { title: ComponentChildren; children: ComponentChildren; wide?: boolean }) {
  return (
    <dialog class="modal modal-bottom sm:modal-middle" data-modal aria-labelledby="modal-title">
      <div class={`modal-box${wide ? ' sm:max-w-2xl' : ''}`}>
        <div class="flex items-start justify-between gap-4 mb-4">
          <h2 id="modal-title" class="text-lg font-bold break-words min-w-0">
            {title}
          </h2>
          <button type="button" class="btn btn-ghost btn-sm btn-square -mt-1 -mr-2" data-modal-close aria-label="Close">
            <Icon name="close" />
          </button>
        </div>
        {children}
      </div>
      <form method="dialog" class="modal-backdrop">
        <button type="submit" tabindex={-1}>
          Close
        </button>
      </form>
    </dialog>
  );
}

/** Shown where a fragment that normally opens as a modal is visited as a page (no JavaScript). */
export function Panel({ title, children }: { title: ComponentChildren; children: ComponentChildren }) {
  return (
    <section class="card bg-base-100 border border-base-300 max-w-2xl" aria-labelledby="panel-title">
      <div class="card-body">
        <h1 id="panel-title" class="card-title text-xl break-words">
          {title}
        </h1>
        {children}
      </div>
    </section>
  );
}

export function Avatar({ name, size = 'size-8 text-sm' }: { name: string; size?: string }) {
  return (
    <span
      class={`${size} shrink-0 rounded-full bg-neutral text-neutral-content inline-flex items-center justify-center font-semibold select-none`}
      aria-hidden="true"
    >
      {initial(name)}
    </span>
  );
}

export function initial(name: string): string {
  const first = [...name.trim()][0] ?? '?';
  return first.toUpperCase();
}

const VISIBILITY_CLASS: Record<Visibility, string> = {
  secure: 'badge-error',
  private: 'badge-warning',
  internal: 'badge-info',
  public: 'badge-neutral',
};

/** The raw visibility value (docs/web-ui.md#link-tables): secure error colour, private warning, internal info, public neutral. */
export function VisibilityBadge({ visibility }: { visibility: Visibility }) {
  return <span class={`badge badge-sm ${VISIBILITY_CLASS[visibility]}`}>{visibility}</span>;
}

/** An inline error beside a form field; the field points at it with aria-describedby. */
export function FieldError({ id, message }: { id: string; message: string | undefined }) {
  if (!message) return null;
  return (
    <p id={id} class="text-sm mt-1 flex items-start gap-1 error-text" role="alert">
      <Icon name="warning" class="size-4 shrink-0 mt-0.5" />
      <span>{message}</span>
    </p>
  );
}

export function Alert({ level = 'error', children }: { level?: 'error' | 'success' | 'info' | 'warning'; children: ComponentChildren }) {
  return (
    <div class={`alert alert-${level}`} role={level === 'error' ? 'alert' : 'status'}>
      <Icon name={level === 'error' || level === 'warning' ? 'warning' : 'check'} class="size-5 shrink-0" />
      <div class="min-w-0 break-words">{children}</div>
    </div>
  );
}

/** The spinner HTMX shows while a request started by the surrounding element is in flight. */
export function Spinner({ id }: { id?: string }) {
  return <span id={id} class="htmx-indicator loading loading-spinner loading-sm" aria-hidden="true"></span>;
}

/** A copy-to-clipboard button: "Copy link", then "Copied!" for 1.5 s (docs/web-ui.md#link-tables). */
export function CopyButton({ value, label = 'Copy link' }: { value: string; label?: string }) {
  return (
    <button type="button" class="btn btn-ghost btn-xs btn-square tooltip" data-tip={label} data-copy={value} aria-label={label}>
      <Icon name="clipboard" class="size-4" />
    </button>
  );
}

/**
 * The data-* hooks of a Delete control that waits for Undo (docs/web-ui.md#deleting-with-undo):
 * the page script hides `hide` (a list row) or dims `mark` (the link's page) and sends
 * `DELETE endpoint` only when the Undo toast runs out. The control's href stays the
 * confirm-delete page, which is what it opens without JavaScript.
 */
export function undoableDelete(d: { endpoint: string; name: string; hide?: string; mark?: string; then?: string }) {
  return {
    'data-delete-link': d.endpoint,
    'data-delete-name': d.name,
    'data-delete-hide': d.hide,
    'data-delete-mark': d.mark,
    'data-delete-then': d.then,
  };
}
