// Generated from the JSDoc in the .js file beside this one by
// `node scripts/package-extension.mjs --types`. Do not edit.
/**
 * `Dev Ops!` → `dev-ops`: lowercase, runs of other characters become one
 * hyphen, no hyphen at either end.
 * @param {string} raw
 */
export function normalizeTag(raw: string): string;
/**
 * The tag list after adding `raw` (normalised; empty and duplicate tags are ignored).
 * @param {readonly string[]} tags
 * @param {string} raw
 * @returns {string[]}
 */
export function addTag(tags: readonly string[], raw: string): string[];
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
export function templateShortcuts(templates: unknown, tabUrl: string): Shortcut[];
/**
 * The slug to prefill from the first shortcut, or `""` when it would not be a valid slug.
 * @param {readonly Shortcut[]} shortcuts
 */
export function prefillSlug(shortcuts: readonly Shortcut[]): string;
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
export function shortcutRows(shortcuts: readonly Shortcut[], settings: import("./settings.js").Settings): ShortcutRow[];
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
export function existingLinkRows(body: unknown, settings: import("./settings.js").Settings): ExistingRow[];
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
export function createLinkBody(form: LinkForm): {
    ok: true;
    body: Record<string, unknown>;
} | {
    ok: false;
    error: string;
};
/**
 * The message for a failed create: the server's `error` (or `message`), else the status.
 * @param {number} status
 * @param {unknown} body
 */
export function createErrorMessage(status: number, body: unknown): string;
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
export function suggestionRows(body: unknown): SuggestionRow[];
/**
 * The server's slug rule (docs/links.md#field-validation), checked before prefilling a slug: up to
 * eight segments joined by single `/` (`blog/launch`), each lowercase letters, digits and inner hyphens.
 */
export const SLUG_PATTERN: RegExp;
export const VISIBILITIES: readonly ["public", "private", "secure", "internal"];
export type Shortcut = {
    keyword: string;
    slug: string;
};
export type ShortcutRow = {
    /**
     * `{keyword}/{slug}`
     */
    label: string;
    /**
     * `{base}/{keyword}/{slug}`
     */
    copyURL: string;
};
export type ExistingRow = {
    /**
     * `{server keyword}/{slug}`
     */
    label: string;
    /**
     * the link's edit page on the server
     */
    editURL: string;
    /**
     * `{base}/{slug}`
     */
    copyURL: string;
};
export type LinkForm = {
    url: string;
    slug: string;
    visibility: string;
    title: string;
    description: string;
    tags: readonly string[];
};
export type SuggestionRow = {
    field: "slug" | "title" | "description" | "tags";
    /**
     * what the row shows
     */
    text: string;
    /**
     * what "Use" puts into the form
     */
    value: string | string[];
};
