import { AppError } from './errors.js';
import { validateKeywordTemplate } from './url.js';

/**
 * Root-forward keywords (docs/links.md#keywords): the name's shape, which the
 * resolver also uses to decide whether a host or first path segment could be
 * a keyword at all, and every rule of a new keyword.
 */

export const KEYWORD_PATTERN = /^[a-z][a-z0-9-]*$/;

export const KEYWORD_SHAPE_MESSAGE = 'Keyword must be lowercase letters, digits, and hyphens (e.g. jira, my-tool).';

export interface KeywordInput {
  keyword: string;
  urlTemplate: string;
  description?: string;
}

export interface ValidKeyword {
  keyword: string;
  urlTemplate: string;
  description: string;
}

/**
 * A new keyword, trimmed, first failure wins: the name's shape, then the
 * template (`validateKeywordTemplate`). Throws BAD_REQUEST naming the field.
 */
export function validateKeyword(input: KeywordInput): ValidKeyword {
  const keyword = input.keyword.trim();
  if (!KEYWORD_PATTERN.test(keyword)) throw new AppError('BAD_REQUEST', KEYWORD_SHAPE_MESSAGE, 'keyword');
  return { keyword, urlTemplate: validateKeywordTemplate(input.urlTemplate), description: input.description?.trim() ?? '' };
}
