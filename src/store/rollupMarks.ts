import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { ROLLUP_DAYS, rollupWindow } from '../domain/rollupCoverage.js';
import { DAY_MS } from '../domain/timeseries.js';
import type { ClicksEb } from './clickKeyset.js';
import { inListChunks } from './sql.js';
import type { Executor } from './types.js';

/**
 * Dirty marks of rolled-up days (docs/analytics.md#rollups). Every write that
 * changes raw click rows under a closed day of the rollup window — a late
 * click batch, a deleted link (its clicks cascade), a deleted user (their
 * clicks turn anonymous), pruning — inserts a mark for that day in its own
 * transaction. Readers take a marked day from raw rows; the roll-up job
 * rebuilds it and deletes, in the rebuild's transaction, exactly the marks it
 * read before reading the raw rows, so a mark written meanwhile survives.
 * Each mark is a row of its own (a fresh id): marks are only inserted and
 * deleted, never upserted.
 */

export interface DirtyMark {
  day: number;
  markId: string;
}

/** Inserts one mark per day, in the caller's transaction. */
export async function markDirtyDays(tx: Executor, days: readonly number[]): Promise<void> {
  if (days.length === 0) return;
  await tx
    .insertInto('click_rollup_dirty_days')
    .values(days.map((day) => ({ day, mark_id: randomUUID() })))
    .execute();
}

/** The marks of days in `[from, to)`. */
export async function dirtyMarks(db: Executor, from: number, to: number): Promise<DirtyMark[]> {
  if (to <= from) return [];
  const rows = await db
    .selectFrom('click_rollup_dirty_days')
    .select(['day', 'mark_id'])
    .where('day', '>=', from)
    .where('day', '<', to)
    .execute();
  return rows.map((r) => ({ day: Number(r.day), markId: r.mark_id }));
}

/** Deletes the given marks of one day (and no other), in the rebuild's transaction. */
export async function clearMarks(tx: Executor, day: number, markIds: readonly string[]): Promise<void> {
  for (const ids of inListChunks(markIds)) {
    await tx.deleteFrom('click_rollup_dirty_days').where('day', '=', day).where('mark_id', 'in', ids).execute();
  }
}

/** Drops marks of days older than any read window (their rollups are dropped too). */
export async function dropMarksBefore(db: Kysely<Database>, oldest: number): Promise<void> {
  await db.deleteFrom('click_rollup_dirty_days').where('day', '<', oldest).execute();
}

/**
 * The closed days of the rollup window at `now` on which some click matches
 * `filter`: one EXISTS probe per day, each an index range that stops at its
 * first match, `daysPerStatement` probes to a statement. Day bucketing stays
 * in TypeScript; SQL only compares `clicked_at` with day bounds.
 */
export async function closedDaysWithClicks(
  tx: Executor,
  now: number,
  filter: ClickFilter,
  daysPerStatement = ROLLUP_DAYS,
): Promise<number[]> {
  const { oldest, today } = rollupWindow(now);
  const all: number[] = [];
  for (let day = oldest; day < today; day += DAY_MS) all.push(day);
  const found: number[] = [];
  for (let i = 0; i < all.length; i += daysPerStatement) found.push(...(await probeDays(tx, all.slice(i, i + daysPerStatement), filter)));
  return found;
}

type ClickFilter = (eb: ClicksEb) => ReturnType<ClicksEb['and']>;

async function probeDays(tx: Executor, days: readonly number[], filter: ClickFilter): Promise<number[]> {
  const row = await tx
    .selectNoFrom((eb) =>
      days.map((day, i) =>
        eb
          .exists(
            eb
              .selectFrom('link_clicks')
              .select(sql`1`.as('one'))
              .where((c) => c.and([c('link_clicks.clicked_at', '>=', day), c('link_clicks.clicked_at', '<', day + DAY_MS), filter(c)])),
          )
          .as(`d${i}`),
      ),
    )
    .executeTakeFirstOrThrow();
  const found = row as Record<string, unknown>;
  return days.filter((_, i) => {
    const v = found[`d${i}`];
    return v === true || Number(v) === 1;
  });
}

/** Marks the closed days on which any of `linkIds` has clicks, before the links (and their clicks) are deleted. */
export async function markDaysOfLinks(tx: Executor, now: number, linkIds: readonly string[]): Promise<void> {
  const days = new Set<number>();
  // Each probe repeats the id list: 50 ids × 30 probes is about 1,600 parameters a statement,
  // well under every driver's limit.
  for (let i = 0; i < linkIds.length; i += 50) {
    const ids = linkIds.slice(i, i + 50);
    for (const d of await closedDaysWithClicks(tx, now, (eb) => eb.and([eb('link_clicks.link_id', 'in', ids)]), 30)) days.add(d);
  }
  await markDirtyDays(tx, [...days]);
}

/** Marks the closed days with clicks of `userId`, before the account goes and those clicks turn anonymous. */
export async function markDaysOfUser(tx: Executor, now: number, userId: string): Promise<void> {
  await markDirtyDays(tx, await closedDaysWithClicks(tx, now, (eb) => eb.and([eb('link_clicks.user_id', '=', userId)])));
}
