import type { FastifyInstance } from 'fastify';
import { currentUser } from '../../auth/currentUser.js';
import { hasNul } from '../../domain/nul.js';
import { asset } from '../../views/assets.js';
import { viewerOf } from '../../store/types.js';
import { query, type WebDeps } from './support.js';

/**
 * The instance as a browser search engine (docs/usage.md#opensearch): the
 * description every page links to, and the suggestions the address bar asks
 * for while someone types. Suggestions come from the one discovery rule
 * (`store.discovery.suggest`), so they never name a link the viewer could not
 * find in the UI.
 */

export const OPENSEARCH_PATH = '/_/opensearch.xml';
const SUGGEST_PATH = '/_/opensearch/suggest';
/** How many completions the address bar gets; it shows few. */
const SUGGESTIONS = 8;

const XML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };
const xml = (s: string): string => s.replace(/[&<>"']/g, (c) => XML_ESCAPES[c]!);

/** The description document: search goes to `{base}/{searchTerms}`, the resolver itself. */
export function openSearchDescription(base: string, shortName: string): string {
  const b = xml(base);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<OpenSearchDescription xmlns="http://a9.com/-/spec/opensearch/1.1/" xmlns:moz="http://www.mozilla.org/2006/browser/search/">',
    `  <ShortName>${xml(shortName)}</ShortName>`,
    `  <Description>${xml(`Go links at ${base}: type a name to go there.`)}</Description>`,
    '  <InputEncoding>UTF-8</InputEncoding>',
    `  <Image width="16" height="16" type="image/svg+xml">${b}${xml(asset('img/favicon.svg'))}</Image>`,
    `  <Url type="text/html" method="get" template="${b}/{searchTerms}"/>`,
    `  <Url type="application/x-suggestions+json" method="get" template="${b}${SUGGEST_PATH}?q={searchTerms}"/>`,
    `  <Url type="application/opensearchdescription+xml" rel="self" template="${b}${OPENSEARCH_PATH}"/>`,
    `  <moz:SearchForm>${b}/</moz:SearchForm>`,
    '</OpenSearchDescription>',
    '',
  ].join('\n');
}

export function registerOpenSearchRoutes(app: FastifyInstance, deps: WebDeps): void {
  const { config, store } = deps;
  const base = config.baseUrl.replace(/\/+$/, '');
  // The name browsers list the engine under: the short keyword, else the base URL's first label.
  const shortName = (config.shortKeyword || new URL(base).hostname.split('.')[0] || 'go').slice(0, 16);
  const description = openSearchDescription(base, shortName);

  app.get(OPENSEARCH_PATH, async (_req, reply) =>
    reply.type('application/opensearchdescription+xml; charset=utf-8').header('cache-control', 'public, max-age=3600').send(description),
  );

  // The suggestions format: [query, [completions], [descriptions], [urls]].
  app.get(SUGGEST_PATH, async (req, reply) => {
    const q = query(req, 'q');
    reply.type('application/x-suggestions+json; charset=utf-8').header('cache-control', 'private, no-store');
    // A NUL can be stored nowhere (PostgreSQL refuses it), so nothing can match it.
    if (q.trim() === '' || hasNul(q)) return reply.send(JSON.stringify([q, [], [], []]));
    const found = await store.discovery.suggest(q.trim(), viewerOf(await currentUser(req, store)), SUGGESTIONS);
    return reply.send(JSON.stringify([q, found.map((s) => s.slug), found.map((s) => s.title), found.map((s) => `${base}/${s.slug}`)]));
  });
}
