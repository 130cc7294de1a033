import type { Kysely, Selectable } from 'kysely';
import type { Database, LinkEventsTable } from '../db/schema.js';
import type { Executor } from './types.js';

/**
 * Link history rows (docs/history.md#how-it-is-stored): written in the
 * transaction of the change they describe, read newest first one keyset page
 * at a time on `seq`. SQL only; what an event means is the links layer's.
 */

export interface LinkEventRecord {
  id: string;
  linkId: string;
  slug: string;
  kind: string;
  at: number;
  via: string | null;
  actorId: string | null;
  actorEmail: string | null;
  actorName: string | null;
  /** The event's own fields, JSON. */
  data: string;
}

export interface StoredLinkEvent extends LinkEventRecord {
  /** Insertion order: the order the changes happened in. */
  seq: number;
}

/** Every given condition must hold; absent ones do not filter. */
export interface LinkEventFilter {
  linkId?: string;
  slug?: string;
  /** Compared as users' emails are: trimmed, case-insensitively. */
  actorEmail?: string;
  kinds?: readonly string[];
}

/** Rows per INSERT: ten parameters each stays far below every database's parameter limit. */
const INSERT_CHUNK = 500;

function toStored(r: Selectable<LinkEventsTable>): StoredLinkEvent {
  return {
    seq: Number(r.seq),
    id: r.id,
    linkId: r.link_id,
    slug: r.slug,
    kind: r.kind,
    at: Number(r.at),
    via: r.via,
    actorId: r.actor_id,
    actorEmail: r.actor_email,
    actorName: r.actor_name,
    data: r.data,
  };
}

export class LinkEventStore {
  constructor(private readonly db: Kysely<Database>) {}

  /** One multi-row INSERT (more only past 500 events, e.g. deleting a user with many links). */
  async insert(records: readonly LinkEventRecord[], tx: Executor): Promise<void> {
    for (let i = 0; i < records.length; i += INSERT_CHUNK) {
      await tx
        .insertInto('link_events')
        .values(
          records.slice(i, i + INSERT_CHUNK).map((r) => ({
            id: r.id,
            link_id: r.linkId,
            slug: r.slug,
            kind: r.kind,
            at: r.at,
            via: r.via,
            actor_id: r.actorId,
            actor_email: r.actorEmail,
            actor_name: r.actorName,
            data: r.data,
          })),
        )
        .execute();
    }
  }

  async get(id: string, db: Executor = this.db): Promise<StoredLinkEvent | null> {
    const r = await db.selectFrom('link_events').selectAll().where('id', '=', id).executeTakeFirst();
    return r ? toStored(r) : null;
  }

  /** How many events match, all of them or only those newer than `afterSeq` (a page's place in the listing). */
  async count(filter: LinkEventFilter, opts: { afterSeq?: number } = {}): Promise<number> {
    let q = this.matching(filter).select((eb) => eb.fn.countAll<number>().as('n'));
    if (opts.afterSeq !== undefined) q = q.where('seq', '>', opts.afterSeq);
    return Number((await q.executeTakeFirstOrThrow()).n);
  }

  /** The events a filter selects: one rule for pages and counts. */
  private matching(filter: LinkEventFilter) {
    let q = this.db.selectFrom('link_events');
    if (filter.linkId !== undefined) q = q.where('link_id', '=', filter.linkId);
    if (filter.slug !== undefined) q = q.where('slug', '=', filter.slug);
    if (filter.kinds !== undefined && filter.kinds.length > 0) q = q.where('kind', 'in', [...filter.kinds]);
    if (filter.actorEmail !== undefined) {
      const email = filter.actorEmail.trim().toLowerCase();
      q = q.where((eb) => eb(eb.fn('lower', ['actor_email']), '=', email));
    }
    return q;
  }

  /**
   * Newest first. `beforeSeq` pages towards older events, `afterSeq` towards newer ones (the
   * page right after it, read oldest first and turned round); `hasMore` says whether another
   * page follows in the direction read.
   */
  async page(
    filter: LinkEventFilter,
    opts: { beforeSeq?: number; afterSeq?: number; limit: number },
  ): Promise<{ events: StoredLinkEvent[]; hasMore: boolean }> {
    let q = this.matching(filter).selectAll();
    if (opts.beforeSeq !== undefined) q = q.where('seq', '<', opts.beforeSeq);
    const newer = opts.beforeSeq === undefined && opts.afterSeq !== undefined;
    if (newer) q = q.where('seq', '>', opts.afterSeq!);
    const rows = await q
      .orderBy('seq', newer ? 'asc' : 'desc')
      .limit(opts.limit + 1)
      .execute();
    const more = rows.length > opts.limit;
    const kept = more ? rows.slice(0, opts.limit) : rows;
    return { events: (newer ? kept.reverse() : kept).map(toStored), hasMore: more };
  }

  /** The events of one link that came after `seq`, newest first (a restore undoes them in this order). */
  async after(linkId: string, seq: number, db: Executor = this.db): Promise<StoredLinkEvent[]> {
    const rows = await db
      .selectFrom('link_events')
      .selectAll()
      .where('link_id', '=', linkId)
      .where('seq', '>', seq)
      .orderBy('seq', 'desc')
      .execute();
    return rows.map(toStored);
  }
}
