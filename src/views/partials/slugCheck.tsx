import { Icon } from './icons.js';

/** The way out of a slug error: use the slug meant, or open the link that holds this one. */
export function SlugFix({ suggestion, open }: { suggestion: string | null; open: string | null }) {
  if (!suggestion && !open) return null;
  return (
    <p class="flex flex-wrap items-center gap-2 text-sm mt-1">
      {suggestion && (
        <>
          <button type="button" class="btn btn-xs btn-primary font-mono js-only" data-slug-suggestion={suggestion}>
            {`Use ${suggestion}`}
          </button>
          <span class="no-js-only">
            Try <span class="font-mono">{suggestion}</span>.
          </span>
        </>
      )}
      {open && (
        <a class="link link-brand" href={open} target="_blank" rel="noopener">
          Open it
        </a>
      )}
    </p>
  );
}

/** The live slug check (docs/web-ui.md#link-forms): available, taken (open it), or what is wrong and the slug meant. */
export function SlugCheck(
  p:
    | { state: 'available' }
    | { state: 'taken'; slug: string; shortKeyword: string }
    | { state: 'error'; message: string; suggestion: string | null },
) {
  if (p.state === 'available') {
    return (
      <span class="success-text inline-flex items-center gap-1">
        <Icon name="check" class="size-4" />
        Available!
      </span>
    );
  }
  if (p.state === 'taken') {
    return (
      <span class="error-text">
        {`${p.shortKeyword}/${p.slug} is taken — `}
        <a class="link" href={`/${p.slug}`} target="_blank" rel="noopener">
          open it
        </a>
      </span>
    );
  }
  return (
    <span class="flex flex-wrap items-center gap-x-2 gap-y-1">
      <span class="error-text">{p.message}</span>
      {p.suggestion && (
        <button type="button" class="btn btn-xs btn-primary font-mono" data-slug-suggestion={p.suggestion}>
          {`Use ${p.suggestion}`}
        </button>
      )}
    </span>
  );
}
