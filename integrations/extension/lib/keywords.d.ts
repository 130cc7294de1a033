// Generated from the JSDoc in the .js file beside this one by
// `node scripts/package-extension.mjs --types`. Do not edit.
/**
 * @typedef {{ ok: true, keywords: string[], shortKeyword: string } | { ok: false, error: string }} RefreshResult
 */
/**
 * Asks the server for its keywords and short keyword and returns the values
 * to store. On failure the caller keeps what it has: a server that is down
 * must not make the extension forget which hosts it intercepts.
 * @param {import('./settings.js').Settings} settings
 * @returns {Promise<RefreshResult>}
 */
export function discoverKeywords(settings: import("./settings.js").Settings): Promise<RefreshResult>;
export const KEYWORD_REFRESH_ALARM: "keyword-refresh";
export const KEYWORD_REFRESH_MINUTES: 60;
export type RefreshResult = {
    ok: true;
    keywords: string[];
    shortKeyword: string;
} | {
    ok: false;
    error: string;
};
