import { formatDate, formatDateTime, isoUtc, relativeTime } from '../format.js';

/**
 * A timestamp as docs/analytics.md#timestamps renders it:
 * `<time datetime="{RFC 3339 UTC}" title="{RFC 3339 UTC}">{UTC text}</time>`.
 * static/js/localtime.js rewrites the text to the viewer's zone (keeping the
 * UTC form in `title`); without JavaScript the UTC text stays. The datetime is
 * always server-stamped from a stored instant, never from user input.
 *
 * `date` renders a list date (`Jan 2, 2006`) and asks the script for a
 * date-only local rendering; otherwise a precise time (`Jan 2, 2006 3:04 PM UTC`).
 */
export function LocalTime({ ms, date = false, class: cls }: { ms: number; date?: boolean; class?: string }) {
  const iso = isoUtc(ms);
  return (
    <time datetime={iso} title={iso} data-local={date ? 'date' : 'datetime'} class={cls}>
      {date ? formatDate(ms) : formatDateTime(ms)}
    </time>
  );
}

/**
 * An instant said relative to `now` (`in 5 hours`, `3 days ago`), server-rendered so it reads
 * right without JavaScript, with the exact time in `title` for hover: UTC from the server,
 * rewritten by static/js/localtime.js to the viewer's zone (docs/web-ui.md#rendering-conventions).
 */
export function RelativeTime({ ms, now, class: cls }: { ms: number; now: number; class?: string }) {
  return (
    <time datetime={isoUtc(ms)} title={formatDateTime(ms)} data-local="relative" class={cls}>
      {relativeTime(ms, now)}
    </time>
  );
}
