// Generated from the JSDoc in the .js file beside this one by
// `node scripts/package-extension.mjs --types`. Do not edit.
/**
 * Settings from whatever `storage.local` holds: missing or mistyped values
 * fall back to the defaults, so a hand-edited or half-written store never
 * breaks navigation handling.
 * @param {Record<string, unknown> | null | undefined} stored
 * @returns {Settings}
 */
export function withDefaults(stored: Record<string, unknown> | null | undefined): Settings;
/**
 * The configured server as a URL, or null when the stored value is not an
 * http(s) URL (nothing is then sent anywhere with credentials).
 * @param {Pick<Settings, 'baseURL'>} settings
 * @returns {URL | null}
 */
export function serverURL(settings: Pick<Settings, "baseURL">): URL | null;
/**
 * `scheme://host[:port]` of the server, or null.
 * @param {Pick<Settings, 'baseURL'>} settings
 */
export function serverOrigin(settings: Pick<Settings, "baseURL">): string | null;
/**
 * The server's host name without port (`go.example.com`), or `""`.
 * @param {Pick<Settings, 'baseURL'>} settings
 */
export function serverHost(settings: Pick<Settings, "baseURL">): string;
/**
 * The "server keyword" (docs/agents.md#extension-settings): the announced short keyword lowercased, else
 * the first DNS label of the server host (`go.example.com` → `go`).
 * @param {Pick<Settings, 'baseURL' | 'shortKeyword'>} settings
 */
export function serverKeyword(settings: Pick<Settings, "baseURL" | "shortKeyword">): string;
/**
 * The base every server URL is built on. Stored values are origins already;
 * trailing slashes are trimmed anyway so `{base}/{slug}` never holds `//`.
 * @param {Pick<Settings, 'baseURL'>} settings
 */
export function serverBase(settings: Pick<Settings, "baseURL">): string;
/**
 * Validates what the user typed as the server URL on the options page (docs/agents.md#extension-settings):
 * only a parseable http(s) URL is accepted, and only its origin is kept, so a
 * pasted link like `https://go.example.com/dashboard` still configures the server.
 * @param {string} input
 * @returns {{ ok: true, origin: string } | { ok: false, error: string }}
 */
export function parseServerInput(input: string): {
    ok: true;
    origin: string;
} | {
    ok: false;
    error: string;
};
/**
 * The extension's stored settings (docs/agents.md#extension-settings) and the
 * names derived from them. Pure functions: the background worker, the popup,
 * the options page and the tests all read settings through these.
 */
/**
 * @typedef {object} Settings
 * @property {string} baseURL server origin, e.g. `https://go.example.com`
 * @property {string} apiKey personal access token (`jl_…`); `""` = unauthenticated
 * @property {string[]} keywords keyword hosts to intercept
 * @property {string} shortKeyword the value `/api/v1/config` announced; `""` = use the host label
 */
/** @type {Readonly<Settings>} */
export const DEFAULT_SETTINGS: Readonly<Settings>;
export type Settings = {
    /**
     * server origin, e.g. `https://go.example.com`
     */
    baseURL: string;
    /**
     * personal access token (`jl_…`); `""` = unauthenticated
     */
    apiKey: string;
    /**
     * keyword hosts to intercept
     */
    keywords: string[];
    /**
     * the value `/api/v1/config` announced; `""` = use the host label
     */
    shortKeyword: string;
};
