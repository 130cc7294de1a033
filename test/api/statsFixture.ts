import assert from 'node:assert/strict';
import { addClicks, type ClickSpec } from '../store/analyticsFixtures.js';
import { eventually, type TestServer } from '../helpers/server.js';
import { actor, call, createLink, type Actor } from './support.js';

/**
 * The world the analytics API tests share: one owner whose links are
 * co-owned by one user and shared with another, an unrelated user, an admin
 * and anonymous callers — the six relationships of the capability table in
 * docs/analytics.md — plus links of each visibility.
 */

/**
 * The server rolls up closed days when it starts (store/clickRollups.ts), and reads trust a
 * rolled-up day until the hourly job notices its raw count moved. Tests write back-dated
 * clicks straight into the table, so they wait for that first run and then bring the
 * rollups up to date themselves, exactly as the job's next run would.
 */
export async function rollupsSettled(s: TestServer): Promise<void> {
  await eventually(async () => (await s.store.leases.lastRunAt('click-rollup')) !== null, 30_000);
}

/** Inserts clicks as the click writer would, then refreshes the rollups of the days they landed on. */
export async function clicks(s: TestServer, linkId: string, specs: readonly ClickSpec[]): Promise<string[]> {
  const ids = await addClicks(s.store, linkId, specs);
  await s.store.clickRollups.rollUp();
  return ids;
}

export type Role = 'owner' | 'coowner' | 'share' | 'other' | 'admin' | 'none';
export const ROLES: Role[] = ['owner', 'coowner', 'share', 'other', 'admin', 'none'];

export interface StatsWorld {
  owner: Actor;
  coowner: Actor;
  share: Actor;
  other: Actor;
  admin: Actor;
  /** Secure, co-owned by `coowner`, shared with `share`. */
  secure: { id: string; slug: string };
  /** Private and public links with the same co-owner and share, so only visibility differs. */
  priv: { id: string; slug: string };
  pub: { id: string; slug: string };
}

let seq = 0;

export async function statsWorld(s: TestServer): Promise<StatsWorld> {
  const tag = `${process.pid}-${++seq}`;
  const [owner, coowner, share, other, admin] = [
    await actor(s, 'owner'),
    await actor(s, 'coowner'),
    await actor(s, 'share'),
    await actor(s, 'other'),
    await actor(s, 'admin', { admin: true }),
  ];
  const people = { owner, coowner, share };
  return {
    owner,
    coowner,
    share,
    other,
    admin,
    secure: await sharedLink(s, people, 'secure', tag),
    priv: await sharedLink(s, people, 'private', tag),
    pub: await sharedLink(s, people, 'public', tag),
  };
}

/** A new link of `owner`'s, co-owned by `coowner` and shared with `share`. */
export async function sharedLink(
  s: TestServer,
  w: Pick<StatsWorld, 'owner' | 'coowner' | 'share'>,
  visibility = 'secure',
  tag = `${process.pid}-${++seq}`,
): Promise<{ id: string; slug: string }> {
  const link = await createLink(s, w.owner, { slug: `stats-${visibility}-${tag}`, visibility });
  const o = await call(s, 'POST', `/api/v1/links/${link.id}/owners`, { as: w.owner, body: { email: w.coowner.user.email } });
  assert.equal(o.status, 201, o.text);
  const sh = await call(s, 'POST', `/api/v1/links/${link.id}/shares`, { as: w.owner, body: { email: w.share.user.email } });
  assert.equal(sh.status, 201, sh.text);
  return { id: link.id, slug: link.slug };
}

export function as(w: StatsWorld, role: Role): Actor | null {
  return role === 'none' ? null : w[role];
}

/** Managers hold CanManageShares (owners, co-owners, admins); recipients and strangers do not. */
export const MANAGERS: Role[] = ['owner', 'coowner', 'admin'];
