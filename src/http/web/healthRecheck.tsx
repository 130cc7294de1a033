import type { FastifyInstance } from 'fastify';
import { lifecycleState } from '../../domain/lifecycle.js';
import { healthChangeRecorder } from '../../notify/lifecycle.js';
import { HealthProbe } from '../../workers/healthProbe.js';
import { notifyOptions } from '../../workers/jobs.js';
import { requireUser } from './guards.js';
import { healthSectionProps } from './linkDetail.js';
import { setFlash } from './render.js';
import { linkFor, seeOther, sendWithToast, shortName, wantsFragment, type WebDeps } from './support.js';
import { HealthSection } from '../../views/partials/linkHealth.js';

/**
 * "Recheck now" on a link's page (docs/lifecycle.md#recheck-now): the checker's own probe of one
 * link, sent at once for an editor, answered with the health line it leaves. Not registered when
 * health checks are off for this server: then no probe is ever sent.
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
    const toast =
      result.kind === 'checked'
        ? { level: 'success' as const, message: `Rechecked ${name}.` }
        : result.kind === 'too-soon'
          ? { level: 'info' as const, message: `${name} was checked moments ago; try again in a few seconds.` }
          : { level: 'info' as const, message: `${name} is not checked: its checks are off, or it is archived, expired or a template.` };
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
}
