// @ts-check
/**
 * The popup's rules (docs/agents.md#popup-and-omnibox) without the DOM: tag normalisation, keyword
 * shortcuts from URL templates, the create request body and messages.
 */
import { serverBase, serverKeyword } from './settings.js';

/**
 * The server's slug rule (docs/links.md#field-validation), checked before prefilling a slug: up to
 * eight segments joined by single `/` (`blog/launch`), each lowercase letters, digits and inner hyphens.
 */
export const SLUG_PATTERN = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\/[a-z0-9](?:[a-z0-9-]*[a-z0-9])?){0,7}$/;
/** The server's longest slug. */
const SLUG_MAX_LENGTH = 128;
export const VISIBILITIES = /** @type {const} */ (['public', 'private', 'secure', 'internal']);

/**
 * `Dev Ops!` → `dev-ops`: lowercase, runs of other characters become one
 * hyphen, no hyphen at either end.
 * @param {string} raw
 */
export function normalizeTag(raw) {
  return raw
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/**
 * The tag list after adding `raw` (normalised; empty and duplicate tags are ignored).
 * @param {readonly string[]} tags
 * @param {string} raw
 * @returns {string[]}
 */
export function addTag(tags, raw) {
  const tag = normalizeTag(raw);
  return tag === '' || tags.includes(tag) ? [...tags] : [...tags, tag];
}

/** @param {string} s */
function withoutQueryAndFragment(s) {
  const cut = s.search(/[?#]/);
  return cut === -1 ? s : s.slice(0, cut);
}

/**
 * @typedef {{ keyword: string, slug: string }} Shortcut
 */

/**
 * Keyword shortcuts for the tab (docs/agents.md#popup-and-omnibox): a template matches when its
 * text before `{slug}` starts the tab URL; the rest of the URL (without query
 * and fragment), minus the template's text after `{slug}`, is the slug. A
 * template that starts with `{slug}` would match every page and is skipped.
 * @param {unknown} templates body of `GET /api/v1/keywords/templates`
 * @param {string} tabUrl
 * @returns {Shortcut[]}
 */
export function templateShortcuts(templates, tabUrl) {
  if (!Array.isArray(templates)) return [];
  /** @type {Shortcut[]} */
  const out = [];
  for (const t of templates) {
    const keyword = t?.keyword;
    const template = t?.url_template;
    if (typeof keyword !== 'string' || keyword === '' || typeof template !== 'string') continue;
    const at = template.indexOf('{slug}');
    if (at <= 0) continue;
    const before = template.slice(0, at);
    if (!tabUrl.startsWith(before)) continue;
    let rest = withoutQueryAndFragment(tabUrl.slice(before.length));
    const after = withoutQueryAndFragment(template.slice(at + '{slug}'.length));
    if (after !== '') {
      if (!rest.endsWith(after)) continue;
      rest = rest.slice(0, rest.length - after.length);
    }
    if (rest !== '') out.push({ keyword, slug: rest });
  }
  return out;
}

/**
 * The slug to prefill from the first shortcut, or `""` when it would not be a valid slug.
 * @param {readonly Shortcut[]} shortcuts
 */
export function prefillSlug(shortcuts) {
  const first = shortcuts[0]?.slug.toLowerCase() ?? '';
  return first.length <= SLUG_MAX_LENGTH && SLUG_PATTERN.test(first) ? first : '';
}

/**
 * @typedef {object} ShortcutRow
 * @property {string} label `{keyword}/{slug}`
 * @property {string} copyURL `{base}/{keyword}/{slug}`
 */

/**
 * @param {readonly Shortcut[]} shortcuts
 * @param {import('./settings.js').Settings} settings
 * @returns {ShortcutRow[]}
 */
export function shortcutRows(shortcuts, settings) {
  const base = serverBase(settings);
  return shortcuts.map((s) => ({ label: `${s.keyword}/${s.slug}`, copyURL: `${base}/${s.keyword}/${s.slug}` }));
}

/**
 * @typedef {object} ExistingRow
 * @property {string} label `{server keyword}/{slug}`
 * @property {string} editURL the link's edit page on the server
 * @property {string} copyURL `{base}/{slug}`
 */

/**
 * Rows for links that already point at the tab's URL (`GET /api/v1/links?url=`).
 * @param {unknown} body
 * @param {import('./settings.js').Settings} settings
 * @returns {ExistingRow[]}
 */
export function existingLinkRows(body, settings) {
  const links = /** @type {{ links?: unknown } | null | undefined} */ (body)?.links;
  if (!Array.isArray(links)) return [];
  const base = serverBase(settings);
  const keyword = serverKeyword(settings);
  /** @type {ExistingRow[]} */
  const out = [];
  for (const l of links) {
    if (typeof l?.slug !== 'string' || typeof l?.id !== 'string') continue;
    out.push({
      label: `${keyword}/${l.slug}`,
      editURL: `${base}/dashboard/links/${encodeURIComponent(l.id)}/edit`,
      copyURL: `${base}/${l.slug}`,
    });
  }
  return out;
}

/**
 * @typedef {object} LinkForm
 * @property {string} url
 * @property {string} slug
 * @property {string} visibility
 * @property {string} title
 * @property {string} description
 * @property {readonly string[]} tags
 */

/**
 * The `POST /api/v1/links` body, or the local validation message.
 * Optional fields are sent only when non-empty.
 * @param {LinkForm} form
 * @returns {{ ok: true, body: Record<string, unknown> } | { ok: false, error: string }}
 */
export function createLinkBody(form) {
  const url = form.url.trim();
  const slug = form.slug.trim();
  if (url === '' || slug === '') return { ok: false, error: 'URL and slug are required.' };
  /** @type {Record<string, unknown>} */
  const body = { url, slug, visibility: form.visibility || 'public' };
  const title = form.title.trim();
  const description = form.description.trim();
  if (title !== '') body.title = title;
  if (description !== '') body.description = description;
  if (form.tags.length > 0) body.tags = [...form.tags];
  return { ok: true, body };
}

/**
 * The message for a failed create: the server's `error` (or `message`), else the status.
 * @param {number} status
 * @param {unknown} body
 */
export function createErrorMessage(status, body) {
  const b = /** @type {{ error?: unknown, message?: unknown } | null | undefined} */ (body);
  if (typeof b?.error === 'string' && b.error !== '') return b.error;
  if (typeof b?.message === 'string' && b.message !== '') return b.message;
  return `Error ${status}`;
}

/**
 * @typedef {object} SuggestionRow
 * @property {'slug' | 'title' | 'description' | 'tags'} field
 * @property {string} text what the row shows
 * @property {string | string[]} value what "Use" puts into the form
 */

/**
 * Rows of the "✦ Suggested" strip from a `POST /api/v1/links/suggest` body,
 * one per non-empty field.
 * @param {unknown} body
 * @returns {SuggestionRow[]}
 */
export function suggestionRows(body) {
  if (body === null || typeof body !== 'object') return [];
  const b = /** @type {Record<string, unknown>} */ (body);
  /** @type {SuggestionRow[]} */
  const rows = [];
  for (const field of /** @type {const} */ (['slug', 'title', 'description'])) {
    const v = b[field];
    if (typeof v === 'string' && v.trim() !== '') rows.push({ field, text: v, value: v });
  }
  if (Array.isArray(b.tags)) {
    const names = b.tags.filter((t) => typeof t === 'string' && t.trim() !== '');
    const tags = names.reduce((acc, t) => addTag(acc, t), /** @type {string[]} */ ([]));
    if (tags.length > 0) rows.push({ field: 'tags', text: names.join(', '), value: tags });
  }
  return rows;
}
