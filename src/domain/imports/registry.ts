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

/** The tool a format reads: its plain `--from` name (`shlink` for `shlink-csv` and `shlink-json`). */
export const toolOf = (format: ImportFormat): string => format.name.replace(/-(csv|tsv|json)$/, '');

/** The plain names `--from` takes, one per tool, in registry order. */
export const TOOL_NAMES: readonly string[] = [...new Set(IMPORT_FORMATS.map(toolOf))];

/** A tool to import from, as the import page offers it: its plain name and, in plain words, the file it gives. */
export interface ImportTool {
  name: string;
  label: string;
}

/**
 * What each tool's file is (docs/import-formats.md, "What to export"), for
 * the tools whose name and one format's label do not already say it: those
 * with several variants, and the tools whose export is one button.
 */
const TOOL_LABELS: Readonly<Record<string, string>> = {
  shlink: 'Shlink (web client CSV export, or the REST API short-URL list JSON)',
  yourls: 'YOURLS (yourls_url table as CSV or mysql --batch, or the API stats JSON)',
  bitly: 'Bitly (Links → Export CSV)',
  dub: 'Dub (Links → Export CSV)',
};

/** One entry per plain name, in registry order: what the import page lists. */
export const IMPORT_TOOLS: readonly ImportTool[] = TOOL_NAMES.map((name) => ({
  name,
  label: TOOL_LABELS[name] ?? IMPORT_FORMATS.find((f) => toolOf(f) === name)!.label,
}));

/**
 * The format `from` names for a file starting with `head`
 * (docs/import-formats.md#detection): nothing detects it from the content; a
 * format's own name (`shlink-csv`) is that format; a tool's plain name
 * (`shlink`, `yourls`) is whichever of its formats the content is, and a file
 * none of them claims is refused saying why (the header it lacks), never read
 * as something it is not.
 */
export function chooseFormat(from: string | undefined, head: string): Detection {
  if (from === undefined || from === '') return detectFormat(head);
  const exact = formatNamed(from);
  if (exact) return { format: exact };
  const family = IMPORT_FORMATS.filter((f) => toolOf(f) === from.toLowerCase());
  if (family.length === 0) {
    return { error: `unknown format "${from}"; the formats are: ${TOOL_NAMES.join(', ')} (or one of ${formatNames()})`, candidates: [] };
  }
  const text = head.replace(/^\uFEFF/, '');
  const found = detectFormat(text, family);
  if ('format' in found) return found;
  if (found.candidates.length > 0) return found;
  const reasons = family.map((f) => f.refusal?.(text) ?? `it is not ${f.label}`);
  return { error: `the file is not a ${from} export: ${reasons.join('; ')}`, candidates: [] };
}

export const formatNames = (formats: readonly ImportFormat[] = IMPORT_FORMATS): string =>
  formats.map((f) => `${f.name} (${f.label})`).join(', ');

export type Detection = { format: ImportFormat } | { error: string; candidates: readonly ImportFormat[] };

/**
 * The one format that claims the start of a file most surely
 * (docs/import-formats.md#detection). Nothing claiming it, or two formats
 * claiming it equally, is an error naming what could be meant, never a guess.
 */
export function detectFormat(head: string, among: readonly ImportFormat[] = IMPORT_FORMATS): Detection {
  const text = head.replace(/^\uFEFF/, '');
  if (text.trim() === '') return { error: 'the file is empty', candidates: [] };
  let best = 0;
  let candidates: ImportFormat[] = [];
  for (const format of among) {
    const score = format.sniff(text);
    if (score > best) {
      best = score;
      candidates = [format];
    } else if (score === best && score > 0) candidates.push(format);
  }
  if (candidates.length === 1) return { format: candidates[0]! };
  if (candidates.length === 0) {
    // A CSV whose first line is already data (a URL in it) lost its header; say so rather than "unknown".
    const first = text.split(/\r?\n/, 1)[0] ?? '';
    const headerless = first.includes(',') && /(^|[,"])\s*[a-z][a-z0-9+.-]*:\/\//i.test(first);
    if (headerless) {
      return {
        error: `the file is CSV without a header line (its first line is a row of links): add the header its tool writes (joe-links: slug,url,title,description,tags), or name the tool with from (${TOOL_NAMES.join(', ')})`,
        candidates: [],
      };
    }
    return { error: `the file is in no format joe-links knows; name one with from: ${formatNames()}`, candidates: [] };
  }
  return {
    error: `the file could be ${candidates.map((f) => f.name).join(' or ')}; name the format with from (${formatNames(candidates)})`,
    candidates,
  };
}
