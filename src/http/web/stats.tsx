import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { requireUser } from './guards.js';
import type { LinkCaps } from '../../domain/caps.js';
import { isAppError } from '../../domain/errors.js';
import { parseSeriesDays, retentionHorizon, type SeriesDays } from '../../domain/timeseries.js';
import type { Link } from '../../store/types.js';
import {
  LinkStatsPage,
  StatsWindow,
  type LinkStatsProps,
  type RetentionLabel,
  type StatsWindowProps,
} from '../../views/pages/linkStats.js';
import { Alert, PageHeader } from '../../views/partials/ui.js';
import type { ApiBudgets } from '../shared/rateLimit.js';
import { sendClickCsv } from '../shared/clickCsv.js';
import { errorToastHeader, isHtmx, pageContext, sendHtml } from './render.js';
import { linkFor, query, type WebDeps } from './support.js';

/**
 * The per-link stats page and its fragments
 * (docs/web-ui.md#stats-page, docs/analytics.md): the page, the chart window the 30/90 toggle swaps, and
 * the session-authenticated CSV export that pairs with the API's.
 *
 * Anonymous visitors are sent to sign in (requireUser); then `linkFor` loads
 * the link and asks LinkCaps — unknown id 404, no CanStats the styled 403.
 * Nothing here decides access itself: attribution is the same LinkCaps'
 * CanManageShares, handed to the store and the view.
 */

/** `days` for the web UI: 30 or 90; anything else (`7`, `abc`, absent) falls back to 30 (docs/analytics.md). */
export function webSeriesDays(raw: string): SeriesDays {
  return parseSeriesDays(raw) ?? 30;
}

export interface StatsDeps extends WebDeps {
  budgets: Pick<ApiBudgets, 'clickExports'>;
}

export function registerStatsRoutes(app: FastifyInstance, deps: StatsDeps): void {
  const { store, config } = deps;
  const guard = { preHandler: requireUser(deps) };
  // Governing: docs/api.md#rate-limits — the signed-in user's export budget, shared with the API's export route.
  const exportBudget = deps.budgets.clickExports;
  const exportGuard = { preHandler: exportBudget ? [requireUser(deps), exportBudget] : requireUser(deps) };

  const retention = (): RetentionLabel => {
    const days = config.clickRetentionDays;
    const horizon = retentionHorizon(store.now(), days);
    return days && horizon !== null ? { days, horizon } : null;
  };

  const windowProps = async (link: Link, days: SeriesDays): Promise<StatsWindowProps> => {
    const w = await store.analytics.linkWindow(link.id, { days, retentionDays: config.clickRetentionDays });
    return { linkId: link.id, days, series: w.series, breakdowns: w.breakdowns };
  };

  const pageProps = async (link: Link, caps: LinkCaps, days: SeriesDays): Promise<LinkStatsProps> => {
    const [totals, recent, window] = await Promise.all([
      store.analytics.totals(link.id),
      // Governing: docs/analytics.md#who-sees-what — the User column only with CanManageShares.
      store.analytics.recentClicks(link.id, { limit: 50, attribution: caps.canManageShares }),
      windowProps(link, days),
    ]);
    return {
      linkId: link.id,
      slug: link.slug,
      totals,
      recent: recent.clicks,
      attribution: caps.canManageShares,
      retention: retention(),
      window,
    };
  };

  const sendPage = async (req: FastifyRequest, reply: FastifyReply, link: Link, caps: LinkCaps, days: SeriesDays) => {
    const ctx = await pageContext(deps, req);
    return sendHtml(req, reply, ctx, `${link.slug} — Analytics`, <LinkStatsPage {...await pageProps(link, caps, days)} />);
  };

  app.get('/dashboard/links/:id/stats', guard, async (req, reply) => {
    // Governing: docs/analytics.md#who-sees-what — the stats page, chart and breakdowns are CanStats.
    const got = await linkFor(deps, req, reply, 'canStats');
    if (!got) return reply;
    return sendPage(req, reply, got.link, got.caps, webSeriesDays(query(req, 'days')));
  });

  // The toggle's fragment: chart + breakdowns of one window. A visit without HTMX gets the whole page.
  app.get('/dashboard/links/:id/stats/chart', guard, async (req, reply) => {
    // Governing: docs/analytics.md#daily-series — gated by CanStats exactly as the enclosing page.
    const got = await linkFor(deps, req, reply, 'canStats');
    if (!got) return reply;
    const days = webSeriesDays(query(req, 'days'));
    if (!isHtmx(req)) return sendPage(req, reply, got.link, got.caps, days);
    const ctx = await pageContext(deps, req);
    return sendHtml(req, reply, ctx, `${got.link.slug} — Analytics`, <StatsWindow {...await windowProps(got.link, days)} />);
  });

  app.get('/dashboard/links/:id/stats/export', exportGuard, async (req, reply) => {
    // Governing: docs/analytics.md#csv-export — CanStats gates the export; user and user_agent need CanManageShares.
    const got = await linkFor(deps, req, reply, 'canStats');
    if (!got) return reply;
    try {
      return await sendClickCsv(reply, store, {
        link: { id: got.link.id, slug: got.link.slug },
        attribution: got.caps.canManageShares,
        query: (req.query ?? {}) as Record<string, unknown>,
      });
    } catch (e) {
      if (isAppError(e) && e.status === 400) return badRequest(deps, req, reply, e.message);
      throw e;
    }
  });
}

/** A 400 as a page (or an error toast for HTMX), naming what was wrong with the request. */
export async function badRequest(deps: WebDeps, req: FastifyRequest, reply: FastifyReply, message: string): Promise<FastifyReply> {
  if (isHtmx(req)) errorToastHeader(reply, message);
  const ctx = await pageContext(deps, req);
  return sendHtml(
    req,
    reply,
    ctx,
    'Bad request',
    <div class="max-w-2xl">
      <PageHeader title="That request could not be processed" />
      <Alert>{message}</Alert>
    </div>,
    400,
  );
}
