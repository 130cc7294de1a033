/**
 * The parts of Go's standard library golink's templates call (domain/golinkTemplate.ts):
 * url.PathEscape, url.QueryEscape and time.Format, as Go writes them.
 */

const UNRESERVED = /[A-Za-z0-9\-_.~]/;

function escapeWith(s: string, keep: RegExp, space: string): string {
  let out = '';
  for (const ch of s) {
    if (ch.length === 1 && keep.test(ch)) out += ch;
    else if (ch === ' ' && space !== '') out += space;
    else for (const byte of Buffer.from(ch, 'utf8')) out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** Go's url.PathEscape: a path segment, `/` escaped, `$&+:=@` kept. */
export function goPathEscape(s: string): string {
  return escapeWith(s, /[A-Za-z0-9\-_.~$&+:=@]/, '');
}

/** Go's url.QueryEscape: a query value, space as `+`. */
export function goQueryEscape(s: string): string {
  return escapeWith(s, UNRESERVED, '+');
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const pad = (n: number, w: number, c = '0') => String(n).padStart(w, c);

/** Go's time.Format for a UTC time: its reference-time layout (`01-02-2006`, `Jan 2 15:04`). */
export function goFormat(at: Date, layout: string): string {
  const hour12 = at.getUTCHours() % 12 === 0 ? 12 : at.getUTCHours() % 12;
  const nanos = String(at.getUTCMilliseconds() * 1_000_000).padStart(9, '0');
  // Tried in this order at each position, as Go's nextStdChunk does.
  const chunks: Array<[string | RegExp, (m: string) => string]> = [
    ['January', () => MONTHS[at.getUTCMonth()]!],
    ['Jan', () => MONTHS[at.getUTCMonth()]!.slice(0, 3)],
    ['Monday', () => DAYS[at.getUTCDay()]!],
    ['Mon', () => DAYS[at.getUTCDay()]!.slice(0, 3)],
    ['MST', () => 'UTC'],
    ['2006', () => pad(at.getUTCFullYear(), 4)],
    ['002', () => pad(dayOfYear(at), 3)],
    ['01', () => pad(at.getUTCMonth() + 1, 2)],
    ['02', () => pad(at.getUTCDate(), 2)],
    ['03', () => pad(hour12, 2)],
    ['04', () => pad(at.getUTCMinutes(), 2)],
    ['05', () => pad(at.getUTCSeconds(), 2)],
    ['06', () => pad(at.getUTCFullYear() % 100, 2)],
    ['15', () => String(at.getUTCHours())],
    ['1', () => String(at.getUTCMonth() + 1)],
    ['_2', () => pad(at.getUTCDate(), 2, ' ')],
    ['2', () => String(at.getUTCDate())],
    ['3', () => String(hour12)],
    ['4', () => String(at.getUTCMinutes())],
    ['5', () => String(at.getUTCSeconds())],
    ['PM', () => (at.getUTCHours() >= 12 ? 'PM' : 'AM')],
    ['pm', () => (at.getUTCHours() >= 12 ? 'pm' : 'am')],
    [/^Z(?:07:00:00|070000|07:00|0700|07)/, () => 'Z'],
    [/^-(?:07:00:00|070000|07:00|0700|07)/, (m) => m.replace(/07|00/g, '00').replace(/^-/, '+')],
    [
      /^[.,](?:0+|9+)(?![0-9])/,
      (m) =>
        m.charAt(1) === '0' ? m.charAt(0) + nanos.slice(0, m.length - 1) : trimmedFraction(m.charAt(0), nanos.slice(0, m.length - 1)),
    ],
  ];
  let out = '';
  let i = 0;
  outer: while (i < layout.length) {
    const rest = layout.slice(i);
    for (const [token, value] of chunks) {
      const m = typeof token === 'string' ? (rest.startsWith(token) ? token : null) : (token.exec(rest)?.[0] ?? null);
      if (m !== null) {
        out += value(m);
        i += m.length;
        continue outer;
      }
    }
    out += layout[i];
    i++;
  }
  return out;
}

function trimmedFraction(sep: string, digits: string): string {
  const kept = digits.replace(/0+$/, '');
  return kept === '' ? '' : sep + kept;
}

function dayOfYear(at: Date): number {
  return Math.floor((at.getTime() - Date.UTC(at.getUTCFullYear(), 0, 1)) / 86_400_000) + 1;
}

/** Go's Time.String for a UTC time, what `{{.Now}}` prints. */
export function goTimeString(at: Date): string {
  return goFormat(at, '2006-01-02 15:04:05.999999999 -0700 MST');
}
