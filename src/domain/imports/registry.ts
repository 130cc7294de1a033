import type { ImportFormat } from './format.js';
import { golink } from './golink.js';
import { OTHER_FORMATS } from './others.js';
import { jsonLines, linksCsv } from './ours.js';
import { slash } from './slash.js';
import { trotto } from './trotto.js';

/**
 * Every importable format (docs/import-formats.md): ours, the go-links
 * tools', then the URL shorteners'. `--from` / `?from=` names one; without
 * it detectFormat picks one from the start of the file.
 */
export const IMPORT_FORMATS: readonly ImportFormat[] = [jsonLines, linksCsv, golink, trotto, slash, ...OTHER_FORMATS];

/** How much of a file detection looks at. */
export const SNIFF_BYTES = 64 * 1024;

export function formatNamed(name: string): ImportFormat | undefined {
  return IMPORT_FORMATS.find((f) => f.name === name);
}

export const formatNames = (formats: readonly ImportFormat[] = IMPORT_FORMATS): string =>
  formats.map((f) => `${f.name} (${f.label})`).join(', ');

export type Detection = { format: ImportFormat } | { error: string; candidates: readonly ImportFormat[] };

/**
 * The one format that claims the start of a file most surely
 * (docs/import-formats.md#detection). Nothing claiming it, or two formats
 * claiming it equally, is an error naming what could be meant, never a guess.
 */
export function detectFormat(head: string): Detection {
  const text = head.replace(/^\uFEFF/, '');
  if (text.trim() === '') return { error: 'the file is empty', candidates: [] };
  let best = 0;
  let candidates: ImportFormat[] = [];
  for (const format of IMPORT_FORMATS) {
    const score = format.sniff(text);
    if (score > best) {
      best = score;
      candidates = [format];
    } else if (score === best && score > 0) candidates.push(format);
  }
  if (candidates.length === 1) return { format: candidates[0]! };
  if (candidates.length === 0) {
    return { error: `the file is in no format joe-links knows; name one with from: ${formatNames()}`, candidates: [] };
  }
  return {
    error: `the file could be ${candidates.map((f) => f.name).join(' or ')}; name the format with from (${formatNames(candidates)})`,
    candidates,
  };
}
