/**
 * Browser and OS families of a stored User-Agent, classified at read time
 * (docs/analytics.md#user-agent-families). Read-time parsing means a fix to the
 * tables below reclassifies all history; nothing parsed is ever stored.
 *
 * Matching is ordered, case-insensitive substring search over a fixed token
 * table, first row wins. There are no regular expressions: both tables are
 * compiled once into one automaton (tokenAutomaton.ts), and a parse is a single
 * pass over an input bounded to 512 code points that reads each character
 * once and takes one automaton step for it, so a hostile UA costs exactly what
 * any other 512-rune UA costs, whatever the tables hold.
 */

import { NO_ROW, buildTokenAutomaton } from './tokenAutomaton.js';
import { Memo } from './memo.js';

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

const AUTOMATON = buildTokenAutomaton([BROWSER_TOKENS.map(([token]) => token), OS_TOKENS.map(([token]) => token)]);
const BROWSER_TABLE = 0;
const OS_TABLE = 1;

/**
 * The only two code points outside ASCII whose lower case holds an ASCII
 * character (the tests check this against the running engine): U+212A KELVIN
 * SIGN becomes "k", and U+0130 (İ) becomes "i" followed by U+0307, a character
 * outside every token. Every other non-ASCII unit leaves the tokens' alphabet
 * whether folded or not, so it is not folded.
 */
const KELVIN_SIGN = 0x212a;
const CAPITAL_I_WITH_DOT = 0x0130;
const COMBINING_DOT_ABOVE = 0x0307;

/**
 * Called once per automaton step with the index of the UTF-16 code unit being
 * read; tests use it to see that each unit is read once (twice for U+0130,
 * whose lower case is two characters) and nothing past the bound.
 */
export type ScanProbe = (index: number) => void;

/**
 * The single pass behind `parseUserAgent`: bounds the input to UA_MAX_RUNES
 * code points (a surrogate pair is one), notices whether it is blank, folds
 * case as `String.prototype.toLowerCase` does for every character a token can
 * match, and runs the automaton, keeping the earliest row of each table seen.
 */
export function scanUserAgent(ua: string | null | undefined, probe?: ScanProbe): UserAgentFamilies {
  if (typeof ua !== 'string') return UNKNOWN;
  let state = AUTOMATON.start;
  let browserRow = NO_ROW;
  let osRow = NO_ROW;
  let blank = true;
  let runes = 0;
  let highSurrogateOpen = false;
  for (let i = 0; i < ua.length; i++) {
    const unit = ua.charCodeAt(i);
    // The low half of a pair belongs to the code point its high half started.
    const continuesPair: boolean = highSurrogateOpen && (unit & 0xfc00) === 0xdc00;
    if (!continuesPair) {
      if (runes === UA_MAX_RUNES) break;
      runes++;
    }
    highSurrogateOpen = !continuesPair && (unit & 0xfc00) === 0xd800;
    if (unit > 0x20) blank = false;
    let folded = unit;
    if (unit >= 0x41 && unit <= 0x5a) folded = unit + 0x20;
    else if (unit === KELVIN_SIGN) folded = 0x6b;
    else if (unit === CAPITAL_I_WITH_DOT) {
      probe?.(i);
      state = AUTOMATON.step(state, 0x69);
      browserRow = Math.min(browserRow, AUTOMATON.row(state, BROWSER_TABLE));
      osRow = Math.min(osRow, AUTOMATON.row(state, OS_TABLE));
      folded = COMBINING_DOT_ABOVE;
    }
    probe?.(i);
    state = AUTOMATON.step(state, folded);
    browserRow = Math.min(browserRow, AUTOMATON.row(state, BROWSER_TABLE));
    osRow = Math.min(osRow, AUTOMATON.row(state, OS_TABLE));
  }
  if (blank) return UNKNOWN;
  return {
    browser: browserRow === NO_ROW ? 'Other' : BROWSER_TOKENS[browserRow]![1],
    os: osRow === NO_ROW ? 'Other' : OS_TOKENS[osRow]![1],
  };
}

/** Families of one UA; empty or absent → "Unknown", unmatched → "Other". Never throws. */
export function parseUserAgent(ua: string | null | undefined): UserAgentFamilies {
  return scanUserAgent(ua);
}

/**
 * Memoises `parseUserAgent` for one aggregation pass: click rows repeat a few
 * dozen UA strings thousands of times. The memo is bounded in entries and key
 * length so hostile distinct strings cannot grow it.
 */
export class UserAgentClassifier {
  private readonly memo: Memo<string, UserAgentFamilies>;

  constructor(maxEntries = 4_096) {
    this.memo = new Memo(maxEntries);
  }

  classify(ua: string | null | undefined): UserAgentFamilies {
    if (typeof ua !== 'string' || ua.length === 0) return UNKNOWN;
    if (ua.length > UA_MAX_RUNES * 2) return parseUserAgent(ua);
    let hit = this.memo.get(ua);
    if (hit === undefined) {
      hit = this.memo.set(ua, parseUserAgent(ua));
    }
    return hit;
  }
}
