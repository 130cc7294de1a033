import type { FastifyInstance } from 'fastify';
import { lifecycleState } from '../../domain/lifecycle.js';
import { healthChangeRecorder } from '../../notify/lifecycle.js';
import { HealthProbe } from '../../workers/healthProbe.js';
import { notifyOptions } from '../../workers/jobs.js';
import type { ProbeOutcome } from '../../domain/health.js';
import { requireAdmin, requireUser } from './guards.js';
import { healthSectionProps } from './linkDetail.js';
import { pageContext, setFlash } from './render.js';
import { linkFor, seeOther, sendWithToast, shortName, wantsFragment, type WebDeps } from './support.js';
import { HealthSection } from '../../views/partials/linkHealth.js';
import { LinkHealthReport } from '../../views/pages/adminHealth.js';

/**
 * "Recheck now" on a link's page (docs/lifecycle.md#recheck-now): the checker's own probe of one
 * link, sent at once for an editor, answered with the health line it leaves; and Recheck on a row
 * of the admin's link-health report, answered with the report as that probe leaves it. Not
 * registered when health checks are off for this server: then no probe is ever sent.
 */
export function registerHealthRecheckRoute(app: FastifyInstance, deps: WebDeps): void {
  const { config, store } = deps;
  if (!config.healthChecks.enabled) return;
  const probe = new HealthProbe({
    store,
    ...config.healthChecks,
    onHealthChange: healthChangeRecorder(store, notifyOptions(deps)),
  });
  app.addHook('onClose', async () => probe.close());

  app.post('/dashboard/links/:id/recheck', { preHandler: requireUser(deps) }, async (req, reply) => {
    const got = await linkFor(deps, req, reply, 'canEdit');
    if (!got) return reply;
    const result = await probe.recheck(got.link);
    const name = shortName(deps, req, got.link.slug);
    const toast = recheckToast(name, result, () => ({ level: 'success', message: `Rechecked ${name}.` }));
    const page = `/dashboard/links/${got.link.id}`;
    if (!wantsFragment(req)) {
      setFlash(reply, toast.level, toast.message);
      return seeOther(reply, page);
    }
    const view = (await store.links.view(got.link.id))!;
    const h = await healthSectionProps(deps, view, got.caps);
    const section = (
      <HealthSection
        link={view}
        health={h.health}
        state={lifecycleState(view, store.now())}
        lastError={h.healthError ?? null}
        canRecheck={h.canRecheck === true}
        checksOff={h.checksOff === true}
      />
    );
    return sendWithToast(reply, section, toast);
  });

  // The report's Recheck: the same probe, then the report again, where a link that answers is gone.
  app.post('/admin/link-health/:id/recheck', { preHandler: requireAdmin(deps) }, async (req, reply) => {
    const got = await linkFor(deps, req, reply, 'canEdit');
    if (!got) return reply;
    const result = await probe.recheck(got.link);
    const name = shortName(deps, req, got.link.slug);
    const toast = recheckToast(name, result, (outcome) => reportToast(name, outcome));
    if (!wantsFragment(req)) {
      setFlash(reply, toast.level, toast.message);
      return seeOther(reply, '/admin/link-health');
    }
    const rows = await store.health.brokenReport();
    const ctx = await pageContext(deps, req);
    return sendWithToast(reply, <LinkHealthReport rows={rows} shortKeyword={ctx.shortKeyword} canRecheck />, toast);
  });
}

type Toast = { level: 'success' | 'info' | 'error'; message: string };

/** What a recheck came to, for either page: `checked` says what a check that ran found. */
function recheckToast(name: string, result: Awaited<ReturnType<HealthProbe['recheck']>>, checked: (outcome: ProbeOutcome) => Toast): Toast {
  if (result.kind === 'checked') return checked(result.outcome);
  if (result.kind === 'too-soon') return { level: 'info', message: `${name} was checked moments ago; try again in a few seconds.` };
  return { level: 'info', message: `${name} is not checked: its checks are off, or it is archived, expired or a template.` };
}

/** What a recheck from the report found, in the words of the report. */
function reportToast(name: string, outcome: ProbeOutcome): Toast {
  switch (outcome.kind) {
    case 'success':
      return { level: 'success', message: `${name} answered HTTP ${outcome.status}: it is no longer broken.` };
    case 'failure': {
      const why = outcome.error ?? (outcome.status !== null ? `HTTP ${outcome.status}` : 'no answer');
      return { level: 'error', message: `${name} still fails: ${why}.` };
    }
    case 'rate-limited':
      return { level: 'info', message: `${name} asked the checker to slow down (HTTP 429); it was not counted either way.` };
    case 'skipped':
      return { level: 'info', message: `${name} could not be checked: ${outcome.reason}.` };
  }
}
