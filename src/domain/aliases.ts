import { AppError } from './errors.js';
import { slugError } from './slug.js';

/** At most this many names besides the slug (docs/links.md#aliases). */
export const MAX_ALIASES_PER_LINK = 10;

/**
 * A link's aliases as a write gives them (docs/links.md#aliases): each
 * trimmed, blanks dropped, at most ten (counted before duplicates collapse,
 * as tags are), each obeying the slug rules, none repeating the link's own
 * slug; duplicates collapse and the result is sorted, the one order every
 * surface and every event shows them in.
 */
export function normalizeAliases(aliases: readonly string[], slug: string): string[] {
  const given = aliases.map((a) => a.trim()).filter((a) => a !== '');
  if (given.length > MAX_ALIASES_PER_LINK) {
    throw new AppError('TOO_MANY_ALIASES', `a link may have at most ${MAX_ALIASES_PER_LINK} aliases`, 'aliases');
  }
  for (const alias of given) {
    const error = slugError(alias, 'alias');
    // Name the refused alias, unless the rule's message already does (a reserved one).
    if (error) throw new AppError('INVALID_ALIAS', error.includes(`"${alias}"`) ? error : `${error}: "${alias}"`, 'aliases');
    if (alias === slug) throw new AppError('INVALID_ALIAS', `an alias must differ from the link's slug: "${alias}"`, 'aliases');
  }
  return [...new Set(given)].sort();
}

/** Splits an alias field of a form or a command line: commas or whitespace between names. */
export function splitAliasList(text: string): string[] {
  return text.split(/[\s,]+/).filter((a) => a !== '');
}
