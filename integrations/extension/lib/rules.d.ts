// Generated from the JSDoc in the .js file beside this one by
// `node scripts/package-extension.mjs --types`. Do not edit.
/**
 * One rule per stored keyword other than the server host. The captured group
 * is the path and query, so `http://go/jira?x=1` keeps `?x=1`.
 * @param {import('./settings.js').Settings} settings
 * @returns {RedirectRule[]}
 */
export function redirectRules(settings: import("./settings.js").Settings): RedirectRule[];
/**
 * The hosts that installed rules already redirect, read back from the rules
 * themselves (a restarted worker has no memory of what it installed).
 * @param {ReadonlyArray<{ condition?: { regexFilter?: string } }>} rules
 * @returns {Set<string>}
 */
export function hostsCoveredBy(rules: ReadonlyArray<{
    condition?: {
        regexFilter?: string;
    };
}>): Set<string>;
export type RedirectRule = {
    id: number;
    priority: number;
    action: {
        type: "redirect";
        redirect: {
            regexSubstitution: string;
        };
    };
    condition: {
        regexFilter: string;
        resourceTypes: ["main_frame"];
    };
};
