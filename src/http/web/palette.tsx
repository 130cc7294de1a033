import type { FastifyInstance } from 'fastify';
import { requestUser } from '../../auth/currentUser.js';
import { viewerOf } from '../../store/types.js';
import { PaletteLinkOptions } from '../../views/partials/palette.js';
import { renderFragment } from '../../views/render.js';
import { requireUser } from './guards.js';
import { shortKeyword } from '../shared/requestAddress.js';
import { query, sendFragment, type WebDeps } from './support.js';

/** How many links the palette lists; it shows a screenful. */
const PALETTE_LINKS = 8;

/**
 * `GET /_/palette?q=`: the links the command palette offers for the text typed
 * (docs/web-ui.md#command-palette), as its options. They come from the autocomplete every search
 * box of the app uses (`store.discovery.suggest`: by name, alias, title or description), so the
 * palette never names a link the viewer could not find elsewhere.
 */
export function registerPaletteRoute(app: FastifyInstance, deps: WebDeps): void {
  const { store, config } = deps;
  app.get('/_/palette', { preHandler: requireUser(deps) }, async (req, reply) => {
    const q = query(req, 'q').trim();
    const found = q === '' ? [] : await store.discovery.suggest(q, viewerOf(requestUser(req)), PALETTE_LINKS);
    reply.header('cache-control', 'private, no-store');
    return sendFragment(reply, renderFragment(<PaletteLinkOptions found={found} shortKeyword={shortKeyword(config, req)} />));
  });
}
