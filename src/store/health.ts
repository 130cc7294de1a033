import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import {
  BROKEN_AFTER_FAILURES,
  deriveHealth,
  healthTransition,
  nextHealthRow,
  type HealthRowValues,
  type LinkHealth,
  type ProbeOutcome,
} from '../domain/health.js';
import { isFixedDestination } from '../domain/url.js';
import { activeAt, type AccessStore } from './access.js';
import { isForeignKeyViolation, isUniqueViolation, retryOnDeadlock } from './dbErrors.js';
import type { OwnerStore } from './owners.js';
import type { Clock, Executor, Link, LinkOwner, Viewer } from './types.js';

/** A link the checker should probe now. */
export interface DueLink {
  id: string;
  url: string;
}

/** The facts of a link that decide whether its health is surfaced. */
export type HealthSubject = Pick<Link, 'id' | 'archivedAt' | 'expiresAt' | 'healthChecksDisabled'>;

/** One row of the admin broken-destination report (docs/lifecycle.md#badges-and-the-admin-report). */
export interface BrokenLinkRow {
  id: string;
  slug: string;
  url: string;
  /** Primary owner first; the page shows distinct display names, the API the owner objects. */
  owners: LinkOwner[];
  consecutiveFailures: number;
  lastStatus: number | null;
  /** For the admin page only; REST and MCP never expose it. */
  lastError: string | null;
  lastCheckedAt: number | null;
}

/** A link that turned broken, or ok again, with the probe that did it. */
export interface HealthChange {
  linkId: string;
  from: 'ok' | 'broken';
  to: 'ok' | 'broken';
  at: number;
}

/**
 * Runs inside the transaction that records the outcome (notifications and
 * webhook deliveries, docs/notifications.md#delivery), so the change and
 * what it announces commit together. Throwing rolls the outcome back.
 */
export type HealthChangeRecorder = (tx: Executor, change: HealthChange) => Promise<void>;

export interface StoredHealthRow extends HealthRowValues {
  linkId: string;
}

/** Keyset page size of the eligibility scan; variable links are dropped between pages. */
const DUE_PAGE = 200;

const num = (v: number | string | null): number | null => (v === null ? null : Number(v));

/**
 * `link_health`: the checker's machine-written state, kept off the hot `links`
 * table. "broken" is derived from `consecutive_failures`, never stored.
 */
export class HealthStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly now: Clock,
    private readonly owners: OwnerStore,
    private readonly access: AccessStore,
  ) {}

  /**
   * Governing: docs/lifecycle.md#health-checks. Links due for
   * a probe — no row yet, or `next_check_at` reached — that are not archived,
   * not expired, not opted out and not `$var` templates, in id order, at most
   * `limit`. The placeholder test is the domain rule itself, applied between
   * keyset pages so an arbitrary number of template links cannot crowd out
   * checkable ones.
   */
  async dueLinks(limit: number, now: number = this.now()): Promise<DueLink[]> {
    const out: DueLink[] = [];
    let afterId = '';
    while (out.length < limit) {
      const rows = await this.db
        .selectFrom('links')
        .leftJoin('link_health', 'link_health.link_id', 'links.id')
        .select(['links.id', 'links.url'])
        .where((eb) =>
          eb.and([
            eb('links.archived_at', 'is', null),
            eb.or([eb('links.expires_at', 'is', null), eb('links.expires_at', '>', now)]),
            eb('links.health_checks_disabled', '=', 0),
            eb.or([
              eb('link_health.link_id', 'is', null),
              eb('link_health.next_check_at', 'is', null),
              eb('link_health.next_check_at', '<=', now),
            ]),
            eb('links.id', '>', afterId),
          ]),
        )
        .orderBy('links.id')
        .limit(DUE_PAGE)
        .execute();
      for (const r of rows) {
        if (isFixedDestination(r.url)) out.push({ id: r.id, url: r.url });
        if (out.length >= limit) break;
      }
      if (rows.length < DUE_PAGE) break;
      afterId = rows[rows.length - 1]!.id;
    }
    return out;
  }

  async row(linkId: string): Promise<StoredHealthRow | null> {
    const r = await this.db.selectFrom('link_health').selectAll().where('link_id', '=', linkId).executeTakeFirst();
    if (!r) return null;
    return {
      linkId: r.link_id,
      lastCheckedAt: num(r.last_checked_at) ?? 0,
      lastStatus: num(r.last_status),
      lastError: r.last_error,
      consecutiveFailures: Number(r.consecutive_failures),
      nextCheckAt: num(r.next_check_at) ?? 0,
      skipped: Number(r.skipped) === 1,
    };
  }

  /**
   * Governing: docs/lifecycle.md#outcomes-and-backoff. Upserts
   * what a completed probe writes; `t` is its completion time. Returns null
   * when the link was deleted while it was being probed (nothing to record).
   */
  async record(
    linkId: string,
    outcome: ProbeOutcome,
    intervalMs: number,
    t: number = this.now(),
    onChange?: HealthChangeRecorder,
  ): Promise<HealthRowValues | null> {
    const write = () =>
      retryOnDeadlock(() =>
        this.db.transaction().execute(async (trx) => {
          const prev = await trx.selectFrom('link_health').select('consecutive_failures').where('link_id', '=', linkId).executeTakeFirst();
          const next = nextHealthRow(prev ? Number(prev.consecutive_failures) : 0, outcome, t, intervalMs);
          const values = {
            last_checked_at: next.lastCheckedAt,
            last_status: next.lastStatus,
            last_error: next.lastError,
            consecutive_failures: next.consecutiveFailures,
            next_check_at: next.nextCheckAt,
            skipped: next.skipped ? 1 : 0,
          };
          if (prev) await trx.updateTable('link_health').set(values).where('link_id', '=', linkId).execute();
          else
            await trx
              .insertInto('link_health')
              .values({ link_id: linkId, ...values })
              .execute();
          const change = healthTransition(prev ? Number(prev.consecutive_failures) : 0, next);
          if (change && onChange) await onChange(trx, { linkId, ...change, at: t });
          return next;
        }),
      );
    try {
      return await write();
    } catch (e) {
      if (isForeignKeyViolation(e)) return null;
      // Another writer created the row between our read and insert: read it again.
      if (isUniqueViolation(e)) return write();
      throw e;
    }
  }

  /**
   * Governing: docs/lifecycle.md#health-status. Health of
   * every given link in one query, with the surfacing rule applied. Gating by
   * viewer is `visibleTo`'s job; this is for callers that already hold CanView.
   */
  async forLinks(links: readonly HealthSubject[], now: number = this.now(), db: Executor = this.db): Promise<Map<string, LinkHealth>> {
    const out = new Map<string, LinkHealth>();
    if (links.length === 0) return out;
    const ids = [...new Set(links.map((l) => l.id))];
    const rows = await db
      .selectFrom('link_health')
      .select(['link_id', 'last_checked_at', 'last_status', 'consecutive_failures', 'skipped'])
      .where('link_id', 'in', ids)
      .execute();
    const byId = new Map(rows.map((r) => [r.link_id, r]));
    for (const link of links) {
      const r = byId.get(link.id);
      out.set(
        link.id,
        deriveHealth(
          link,
          r
            ? {
                lastCheckedAt: num(r.last_checked_at),
                lastStatus: num(r.last_status),
                consecutiveFailures: Number(r.consecutive_failures),
                skipped: Number(r.skipped) === 1,
              }
            : null,
          now,
        ),
      );
    }
    return out;
  }

  async forLink(link: HealthSubject): Promise<LinkHealth> {
    return (await this.forLinks([link])).get(link.id)!;
  }

  /**
   * Health for the rows a viewer may see it on: only links where LinkCaps
   * grants CanView get an entry (REST/MCP omit `health` and
   * `health_checks_disabled` for the rest). Two caps queries plus one health
   * query, whatever the list length.
   */
  async visibleTo(links: readonly HealthSubject[], viewer: Viewer): Promise<Map<string, LinkHealth>> {
    const caps = await this.access.capsMany(
      links.map((l) => l.id),
      viewer,
    );
    return this.forLinks(links.filter((l) => caps.get(l.id)?.canView === true));
  }

  /**
   * Governing: docs/lifecycle.md#badges-and-the-admin-report. Every broken
   * destination that is still surfaced: ≥ 3 consecutive failures, not
   * skipped, not opted out, not archived, not expired; most failures first,
   * then slug. Instance-wide: the caller must be an admin.
   */
  async brokenReport(now: number = this.now()): Promise<BrokenLinkRow[]> {
    return this.brokenRows(now);
  }

  /** How many links the report lists and its first `limit` rows, the worst (the admin overview). */
  async brokenSummary(limit: number, now: number = this.now()): Promise<{ total: number; worst: BrokenLinkRow[] }> {
    const [count, worst] = await Promise.all([
      this.brokenLinks(now)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow(),
      this.brokenRows(now, limit),
    ]);
    return { total: Number(count.n), worst };
  }

  /** The links the report lists, unordered: broken, not skipped, not opted out, active. */
  private brokenLinks(now: number) {
    return this.db
      .selectFrom('links')
      .innerJoin('link_health', 'link_health.link_id', 'links.id')
      .where('link_health.consecutive_failures', '>=', BROKEN_AFTER_FAILURES)
      .where('link_health.skipped', '=', 0)
      .where('links.health_checks_disabled', '=', 0)
      .where(activeAt(now));
  }

  private async brokenRows(now: number, limit?: number): Promise<BrokenLinkRow[]> {
    let q = this.brokenLinks(now)
      .select([
        'links.id',
        'links.slug',
        'links.url',
        'link_health.consecutive_failures',
        'link_health.last_status',
        'link_health.last_error',
        'link_health.last_checked_at',
      ])
      .orderBy('link_health.consecutive_failures', 'desc')
      .orderBy('links.slug');
    if (limit !== undefined) q = q.limit(limit);
    const rows = await q.execute();
    const owners = await this.owners.forLinks(rows.map((r) => r.id));
    return rows.map((r) => ({
      id: r.id,
      slug: r.slug,
      url: r.url,
      owners: owners.get(r.id) ?? [],
      consecutiveFailures: Number(r.consecutive_failures),
      lastStatus: num(r.last_status),
      lastError: r.last_error,
      lastCheckedAt: num(r.last_checked_at),
    }));
  }
}
