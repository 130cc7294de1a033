import { Icon } from './icons.js';
import { Spinner } from './ui.js';

export interface LiveSearchProps {
  /** The page the search belongs to; its `?q=` is the search (docs/web-ui.md#search). */
  action: string;
  /** The input's id, which `/` and the palette's "Search" entries focus. */
  id: string;
  label: string;
  value: string;
  /** The list the answer replaces, e.g. `#link-list`. */
  target: string;
}

/**
 * A search box that filters its page's list as the person types and keeps the words in the
 * address (replaced, not pushed: a pause in typing is not a page to go back to), so reload and
 * share show the same list. Enter submits the form: with HTMX the form itself asks for the list,
 * and both requests take turns on the form, so typing then Enter is one answer, never a swap
 * racing a page load. Without JavaScript it is a plain GET form.
 */
export function LiveSearch({ action, id, label, value, target }: LiveSearchProps) {
  const spinner = `${id}-spinner`;
  const exchange = {
    'hx-get': action,
    'hx-target': target,
    'hx-swap': 'outerHTML',
    'hx-replace-url': 'true',
    'hx-indicator': `#${spinner}, ${target}`,
  };
  return (
    <form method="get" action={action} role="search" class="mb-4" {...exchange} hx-sync="this:replace">
      <label for={id} class="sr-only">
        {label}
      </label>
      <div class="input w-full md:max-w-xl">
        <Icon name="search" class="size-5 opacity-70" />
        <input
          id={id}
          type="search"
          name="q"
          value={value}
          placeholder="Search by slug, URL, title, description or owner..."
          autocomplete="off"
          {...exchange}
          hx-trigger="input changed delay:300ms"
          hx-sync="closest form:replace"
        />
        <Spinner id={spinner} />
      </div>
    </form>
  );
}
