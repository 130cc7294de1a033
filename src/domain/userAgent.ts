/**
 * Browser and OS families of a stored User-Agent, classified at read time
 * (docs/analytics.md#user-agent-families). Read-time parsing means a fix to the
 * tables below reclassifies all history; nothing parsed is ever stored.
 *
 * Matching is ordered, case-insensitive substring search over a fixed token
 * table, first match wins. There are no regular expressions: each lookup is
 * a plain scan of an input bounded to 512 code points, for a fixed number of
 * tokens, so a hostile UA costs exactly what any other 512-rune UA costs.
 */

export const BROWSER_FAMILIES = ['Firefox', 'Edge', 'Chrome', 'Safari', 'Bot/CLI', 'Other', 'Unknown'] as const;
export type BrowserFamily = (typeof BROWSER_FAMILIES)[number];

export const OS_FAMILIES = ['Windows', 'macOS', 'iOS', 'Android', 'Linux', 'Other', 'Unknown'] as const;
export type OsFamily = (typeof OS_FAMILIES)[number];

/** Capture already truncates to 512 code points; the parser re-applies the bound so any caller is safe. */
export const UA_MAX_RUNES = 512;

type TokenTable<F> = ReadonlyArray<readonly [token: string, family: F]>;

/**
 * The normative browser match order (Governing: docs/analytics.md#user-agent-families).
 * Tokens are lower-case; the input is lower-cased once before matching.
 *
 * - Automated clients come first: crawlers impersonate real browsers
 *   (Googlebot's smartphone UA carries Android, Chrome/ and Safari/ tokens).
 * - Edge before Chrome: Chromium Edge sends `Chrome/… Edg/…`; EdgA/EdgiOS are
 *   its Android and iOS builds.
 * - Other Chromium-based browsers (Opera, Samsung Internet, Yandex, Vivaldi,
 *   UC) also send `Chrome/`; they are not Chrome, and the taxonomy is closed,
 *   so they are named explicitly as "Other" before the Chrome row.
 * - Firefox before Safari: Firefox on iOS (FxiOS) carries a Safari/ token.
 * - Chrome before Safari: every Chrome UA, CriOS included, ends in Safari/.
 * - Android before Safari: the pre-Chrome Android stock browser claims
 *   Safari/, but Safari does not exist on Android.
 */
export const BROWSER_TOKENS: TokenTable<BrowserFamily> = [
  ['bot', 'Bot/CLI'],
  ['spider', 'Bot/CLI'],
  ['crawler', 'Bot/CLI'],
  ['curl', 'Bot/CLI'],
  ['wget', 'Bot/CLI'],
  ['slurp', 'Bot/CLI'],
  ['facebookexternalhit', 'Bot/CLI'],
  ['headlesschrome', 'Bot/CLI'],
  ['chrome-lighthouse', 'Bot/CLI'],
  ['python-requests', 'Bot/CLI'],
  ['python-urllib', 'Bot/CLI'],
  ['go-http-client', 'Bot/CLI'],
  ['okhttp', 'Bot/CLI'],
  ['libwww-perl', 'Bot/CLI'],
  ['httpie', 'Bot/CLI'],
  ['postmanruntime', 'Bot/CLI'],
  ['edg/', 'Edge'],
  ['edga/', 'Edge'],
  ['edgios/', 'Edge'],
  ['edge/', 'Edge'],
  ['opr/', 'Other'],
  ['opera', 'Other'],
  ['samsungbrowser/', 'Other'],
  ['yabrowser/', 'Other'],
  ['vivaldi/', 'Other'],
  ['ucbrowser/', 'Other'],
  ['firefox/', 'Firefox'],
  ['fxios/', 'Firefox'],
  ['chrome/', 'Chrome'],
  ['crios/', 'Chrome'],
  ['chromium/', 'Chrome'],
  ['android', 'Other'],
  ['safari/', 'Safari'],
];

/**
 * The normative OS match order.
 *
 * - Windows first: Windows Phone UAs also name Android and iPhone.
 * - iOS before macOS: every iPhone/iPad UA says "like Mac OS X". iPadOS in
 *   desktop mode sends a macOS UA verbatim and is counted as macOS — the
 *   string carries no way to tell them apart.
 * - The iOS builds of Chrome, Firefox and Edge imply iOS even when an
 *   embedding app trims the device part.
 * - Android before Linux: every Android UA says "Linux".
 */
export const OS_TOKENS: TokenTable<OsFamily> = [
  ['windows', 'Windows'],
  ['iphone', 'iOS'],
  ['ipad', 'iOS'],
  ['ipod', 'iOS'],
  ['crios/', 'iOS'],
  ['fxios/', 'iOS'],
  ['edgios/', 'iOS'],
  ['macintosh', 'macOS'],
  ['mac os x', 'macOS'],
  ['mac_powerpc', 'macOS'],
  ['macos', 'macOS'],
  ['android', 'Android'],
  ['linux', 'Linux'],
];

export interface UserAgentFamilies {
  browser: BrowserFamily;
  os: OsFamily;
}

const UNKNOWN: UserAgentFamilies = Object.freeze({ browser: 'Unknown', os: 'Unknown' });

/** The first `max` code points, walking at most `max` code points however long `s` is. */
function boundRunes(s: string, max: number): string {
  if (s.length <= max) return s;
  let units = 0;
  for (let runes = 0; runes < max && units < s.length; runes++) {
    const c = s.charCodeAt(units);
    const pair = c >= 0xd800 && c <= 0xdbff && units + 1 < s.length && (s.charCodeAt(units + 1) & 0xfc00) === 0xdc00;
    units += pair ? 2 : 1;
  }
  return s.slice(0, units);
}

function firstMatch<F>(lower: string, table: TokenTable<F>, fallback: F): F {
  for (const [token, family] of table) if (lower.includes(token)) return family;
  return fallback;
}

function isBlank(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0x20) return false;
  return true;
}

/** Families of one UA; empty or absent → "Unknown", unmatched → "Other". Never throws. */
export function parseUserAgent(ua: string | null | undefined): UserAgentFamilies {
  if (typeof ua !== 'string') return UNKNOWN;
  const bounded = boundRunes(ua, UA_MAX_RUNES);
  if (isBlank(bounded)) return UNKNOWN;
  const lower = bounded.toLowerCase();
  return { browser: firstMatch(lower, BROWSER_TOKENS, 'Other'), os: firstMatch(lower, OS_TOKENS, 'Other') };
}

/**
 * Memoises `parseUserAgent` for one aggregation pass: click rows repeat a few
 * dozen UA strings thousands of times. The memo is bounded in entries and key
 * length so hostile distinct strings cannot grow it.
 */
export class UserAgentClassifier {
  private readonly memo = new Map<string, UserAgentFamilies>();

  constructor(private readonly maxEntries = 4_096) {}

  classify(ua: string | null | undefined): UserAgentFamilies {
    if (typeof ua !== 'string' || ua.length === 0) return UNKNOWN;
    if (ua.length > UA_MAX_RUNES * 2) return parseUserAgent(ua);
    let hit = this.memo.get(ua);
    if (hit === undefined) {
      hit = parseUserAgent(ua);
      if (this.memo.size >= this.maxEntries) this.memo.clear();
      this.memo.set(ua, hit);
    }
    return hit;
  }
}
