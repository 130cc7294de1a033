// Generated from the JSDoc in the .js file beside this one by
// `node scripts/package-extension.mjs --types`. Do not edit.
/**
 * @typedef {object} ServerResponse
 * @property {number} status
 * @property {boolean} ok
 * @property {unknown} body parsed JSON, or undefined when the body was not JSON
 */
/**
 * The `Authorization` value for a request to `target`, or null. Null unless a
 * key is set, the server setting is an http(s) URL, and `target` has exactly
 * the server's origin (scheme, host and port).
 * @param {string} target absolute URL the request goes to
 * @param {{ baseURL: string, apiKey: string }} settings
 * @returns {string | null}
 */
export function authorizationFor(target: string, settings: {
    baseURL: string;
    apiKey: string;
}): string | null;
/**
 * Calls the joe-links server. `path` starts with `/`; the URL is always the
 * configured base plus that path. Resolves with the status and parsed body;
 * rejects only on network failure or timeout.
 * @param {{ baseURL: string, apiKey: string }} settings
 * @param {string} path
 * @param {{ method?: string, json?: unknown, timeoutMs: number }} options
 * @returns {Promise<ServerResponse>}
 */
export function callServer(settings: {
    baseURL: string;
    apiKey: string;
}, path: string, options: {
    method?: string;
    json?: unknown;
    timeoutMs: number;
}): Promise<ServerResponse>;
/**
 * A short, human message for a failed call (timeouts and network errors).
 * @param {unknown} err
 */
export function networkErrorMessage(err: unknown): string;
export type ServerResponse = {
    status: number;
    ok: boolean;
    /**
     * parsed JSON, or undefined when the body was not JSON
     */
    body: unknown;
};
