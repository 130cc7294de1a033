/**
 * Date formats of docs/web-ui.md#rendering-conventions, always in UTC so a page reads the same for
 * every viewer and in every test: lists show `Jan 2, 2006`, precise times
 * `Jan 2, 2006 3:04 PM UTC`.
 */

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

export function formatDate(ms: number): string {
  const d = new Date(ms);
  return `${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}, ${d.getUTCFullYear()}`;
}

export function formatDateTime(ms: number): string {
  const d = new Date(ms);
  const h = d.getUTCHours();
  const hour12 = h % 12 === 0 ? 12 : h % 12;
  const minutes = String(d.getUTCMinutes()).padStart(2, '0');
  return `${formatDate(ms)} ${hour12}:${minutes} ${h < 12 ? 'AM' : 'PM'} UTC`;
}

/**
 * A precise time with its seconds, `Jan 2, 2006 3:04:05 PM UTC`: where two instants of the same
 * minute must be told apart (the versions of a link's history).
 */
export function formatDateTimeSeconds(ms: number): string {
  const seconds = String(new Date(ms).getUTCSeconds()).padStart(2, '0');
  return formatDateTime(ms).replace(/ (AM|PM) UTC$/, `:${seconds} $1 UTC`);
}

/** RFC 3339 UTC for `<time datetime>`; whole seconds, as stored. */
export function isoUtc(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** The value a `datetime-local` input shows for a stored UTC instant, seconds included (docs/lifecycle.md#expiry). */
export function datetimeLocalValue(ms: number | null): string {
  if (ms === null) return '';
  return new Date(ms).toISOString().slice(0, 19);
}

/** `N link` / `N links`. */
export function plural(n: number, word: string, pluralWord = `${word}s`): string {
  return `${n} ${n === 1 ? word : pluralWord}`;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** Coarse units for relative times; whole units only, counted down, so the text never overstates. */
const UNITS: ReadonlyArray<[limit: number, size: number, word: string]> = [
  [HOUR, MINUTE, 'minute'],
  [DAY, HOUR, 'hour'],
  [30 * DAY, DAY, 'day'],
  [365 * DAY, 30 * DAY, 'month'],
  [Infinity, 365 * DAY, 'year'],
];

/**
 * `in 5 hours` / `3 days ago` for an instant seen from `now` (docs/web-ui.md#rendering-conventions).
 * Under a minute either way reads `in less than a minute` / `less than a minute ago`.
 */
export function relativeTime(ms: number, now: number): string {
  const gap = Math.abs(ms - now);
  const future = ms > now;
  if (gap < MINUTE) return future ? 'in less than a minute' : 'less than a minute ago';
  const [, size, word] = UNITS.find(([limit]) => gap < limit)!;
  const amount = plural(Math.floor(gap / size), word);
  return future ? `in ${amount}` : `${amount} ago`;
}
