import type { LinkHealth } from '../../domain/health.js';
import type { LifecycleState } from '../../domain/lifecycle.js';
import { isFixedDestination, isLocalDestination } from '../../domain/url.js';
import type { LinkView } from '../../store/types.js';
import { Icon } from './icons.js';
import { LocalTime } from './localTime.js';
import { Spinner } from './ui.js';

/**
 * The health line of docs/lifecycle.md#badges-and-the-admin-report. A link the checker never
 * visits says why rather than "not checked yet"; a broken one names its last error.
 */
function HealthLine({
  link,
  health,
  state,
  lastError,
  checksOff,
}: {
  link: LinkView;
  health: LinkHealth;
  state: LifecycleState;
  lastError: string | null;
  checksOff: boolean;
}) {
  if (link.healthChecksDisabled) return <p class="text-sm">Health checks: opted out</p>;
  const unchecked = uncheckedReason(link, state);
  if (unchecked !== null) return <p class="text-sm text-base-content/70">{unchecked}</p>;
  if (health.status === 'unchecked') {
    // With the checker off, "not checked yet" would wait forever.
    const text = checksOff ? 'Destination not checked: health checks are turned off on this server.' : 'Destination not checked yet.';
    return <p class="text-sm text-base-content/70">{text}</p>;
  }
  const label = health.status === 'ok' ? 'OK' : health.status === 'broken' ? 'Broken' : 'Not checkable under current server policy';
  return (
    <div class="text-sm space-y-1">
      <p class="flex flex-wrap items-center gap-x-2 gap-y-1">
        <span>Health:</span>
        {health.status === 'broken' ? <span class="badge badge-sm badge-error">broken</span> : <span class="font-medium">{label}</span>}
        {health.lastStatus !== null && <span>{`· last status ${health.lastStatus}`}</span>}
        {health.lastCheckedAt !== null && (
          <span>
            {'· checked '}
            <LocalTime ms={health.lastCheckedAt} />
          </span>
        )}
      </p>
      {health.status === 'broken' && (
        <p class="break-words" data-health-error>
          {`Last error: ${lastError ?? (health.lastStatus !== null ? `the destination answered HTTP ${health.lastStatus}` : 'no answer')}`}
        </p>
      )}
    </div>
  );
}

export interface HealthSectionProps {
  link: LinkView;
  health: LinkHealth;
  state: LifecycleState;
  lastError: string | null;
  canRecheck: boolean;
  /** The server runs no health checks. */
  checksOff?: boolean;
}

/**
 * The health line with its "Recheck now" button (docs/lifecycle.md#recheck-now). The button's
 * answer replaces this section; without JavaScript the form posts and the page comes back.
 */
export function HealthSection(p: HealthSectionProps) {
  const action = `/dashboard/links/${p.link.id}/recheck`;
  return (
    <div id="link-health" class="flex flex-wrap items-start gap-x-3 gap-y-2">
      <div class="min-w-0 flex-1">
        <HealthLine link={p.link} health={p.health} state={p.state} lastError={p.lastError} checksOff={p.checksOff === true} />
      </div>
      {p.canRecheck && (
        <form method="post" action={action} hx-post={action} hx-target="#link-health" hx-swap="outerHTML" hx-disabled-elt="find button">
          <button type="submit" class="btn btn-sm">
            <Spinner />
            <Icon name="refresh" class="size-4" />
            Recheck now
          </button>
        </form>
      )}
    </div>
  );
}

/** Why the checker never visits this link (docs/lifecycle.md#health-checks), or null when it does. */
function uncheckedReason(link: LinkView, state: LifecycleState): string | null {
  if (state === 'archived') return 'Destination not checked while the link is archived; unarchiving resumes the checks.';
  if (state === 'expired') return 'Destination not checked while the link is expired; renewing resumes the checks.';
  if (isLocalDestination(link.url)) return 'Destination not checked: it is another link on this server.';
  if (!isFixedDestination(link.url)) return 'Destination not checked: a template link’s destination depends on the values filled in.';
  return null;
}
