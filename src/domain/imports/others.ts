import { bitlyCsv } from './bitly.js';
import { dubCsv } from './dub.js';
import type { ImportFormat } from './format.js';
import { kuttJson } from './kutt.js';
import { shlinkCsv, shlinkJson } from './shlink.js';
import { yourlsCsv, yourlsJson, yourlsTsv } from './yourls.js';

/**
 * The exports of URL shorteners (docs/import-formats.md), beside the go-links
 * tools' formats the registry lists itself.
 */
export const OTHER_FORMATS: readonly ImportFormat[] = [shlinkCsv, shlinkJson, yourlsCsv, yourlsTsv, yourlsJson, bitlyCsv, dubCsv, kuttJson];
