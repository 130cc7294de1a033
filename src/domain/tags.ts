import { AppError } from './errors.js';
import { codePointLength } from './text.js';

export const MAX_TAGS_PER_LINK = 20;
export const TAG_NAME_MAX = 50;
const TAG_NAME = /^[a-zA-Z0-9][a-zA-Z0-9 _-]*$/;

/** `"Engineering Tools"` → `engineering-tools` (docs/links.md#tags). */
export function tagSlug(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/[ _]/g, '-')
    .replace(/[^a-z0-9-]/g, '')
    .replace(/-+/g, '-')
    .replace(/^-|-$/g, '');
}

export interface TagInput {
  name: string;
  slug: string;
}

/**
 * Validates a tag list and collapses duplicates by derived slug, first
 * spelling wins. The count limit applies before de-duplication.
 */
export function normalizeTags(names: readonly string[]): TagInput[] {
  if (names.length > MAX_TAGS_PER_LINK) {
    throw new AppError('TOO_MANY_TAGS', `a link may have at most ${MAX_TAGS_PER_LINK} tags`, 'tags');
  }
  const out: TagInput[] = [];
  const seen = new Set<string>();
  for (const raw of names) {
    const name = raw.trim();
    if (codePointLength(name) > TAG_NAME_MAX) {
      throw new AppError('INVALID_TAG_NAME', `tag names must be at most ${TAG_NAME_MAX} characters: "${name}"`, 'tags');
    }
    if (!TAG_NAME.test(name)) {
      throw new AppError(
        'INVALID_TAG_NAME',
        `tag names must start with a letter or digit and may contain only letters, digits, spaces, hyphens, and underscores: "${name}"`,
        'tags',
      );
    }
    const slug = tagSlug(name);
    if (seen.has(slug)) continue;
    seen.add(slug);
    out.push({ name, slug });
  }
  return out;
}

/** Splits a comma-separated tag field (web forms, CLI); empty items are dropped. */
export function splitTagList(text: string): string[] {
  return text
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '');
}
