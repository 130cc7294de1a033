import { sql, type AliasedRawBuilder, type Expression, type RawBuilder, type SqlBool } from 'kysely';
import type { LinkFacts } from '../domain/caps.js';

/**
 * What a user holds of a link, in one place (docs/groups.md#what-a-group-grants): an owner or
 * share row of their own, or one of a group they are a member of. Every access check — the
 * resolver's one lookup, capabilities, lists and statistics scopes — asks through these, so a
 * membership change counts on the very next request on every replica: nothing is cached.
 */
export type Holding = 'owner' | 'share';

const TABLES: Record<Holding, { own: string; group: string }> = {
  owner: { own: 'link_owners', group: 'link_owner_groups' },
  share: { own: 'link_shares', group: 'link_share_groups' },
};

/** A value bound as a parameter, or a column or expression of the surrounding query. */
export type SqlValue = string | Expression<unknown>;

const bind = (v: SqlValue): RawBuilder<unknown> | Expression<unknown> => (typeof v === 'string' ? sql`${v}` : v);

/**
 * True when `user` holds `holding` of `link`. Placeholders, for values: `link`, `user`,
 * `link`, `user` in that order.
 */
export function holds(holding: Holding, link: SqlValue, user: SqlValue): RawBuilder<SqlBool> {
  const { own, group } = TABLES[holding];
  const l = bind(link);
  const u = bind(user);
  return sql<SqlBool>`(exists (select 1 from ${sql.table(own)} h where h.link_id = ${l} and h.user_id = ${u}) or exists (select 1 from ${sql.table(group)} g inner join group_members m on m.group_id = g.group_id where g.link_id = ${l} and m.user_id = ${u}))`;
}

/** The ids of links `userId` holds `holding` of, directly or through a group: a subquery for `IN`. */
export function heldLinkIds(holding: Holding, userId: string): RawBuilder<string> {
  const { own, group } = TABLES[holding];
  return sql<string>`select h.link_id from ${sql.table(own)} h where h.user_id = ${userId} union select g.link_id from ${sql.table(group)} g inner join group_members m on m.group_id = g.group_id where m.user_id = ${userId}`;
}

/** `holds` as a column: 1 when held, else null (placeholders as `holds`). */
export function holdsFlag(holding: Holding, link: SqlValue, user: SqlValue): RawBuilder<number | null> {
  return sql<number | null>`(case when ${holds(holding, link, user)} then 1 end)`;
}

/**
 * True when `user` holds `holding` of `link` through a group they are a member of (not a row of
 * their own): the dashboard's "links of my groups". Placeholders: `link`, `user`.
 */
export function holdsThroughGroup(holding: Holding, link: SqlValue, user: SqlValue): RawBuilder<SqlBool> {
  const { group } = TABLES[holding];
  return sql<SqlBool>`exists (select 1 from ${sql.table(group)} g inner join group_members m on m.group_id = g.group_id where g.link_id = ${bind(link)} and m.user_id = ${bind(user)})`;
}

/**
 * The secure-link facts of one user and one link as two columns, `owner` and `share` (each 1
 * or null; placeholders as `holds`, owner's then share's): the one facts lookup, whichever
 * query carries it (capabilities, the session's viewer of a link, a signed-in visit).
 * `gate`, when given, wraps each so it is computed only where the query needs it.
 */
export function factColumns(
  link: SqlValue,
  user: SqlValue,
  gate: (flag: RawBuilder<number | null>) => RawBuilder<number | null> = (flag) => flag,
): [AliasedRawBuilder<number | null, 'owner'>, AliasedRawBuilder<number | null, 'share'>] {
  return [gate(holdsFlag('owner', link, user)).as('owner'), gate(holdsFlag('share', link, user)).as('share')];
}

/** LinkFacts from the two columns of `factColumns` and the viewer's role. */
export function factsFrom(owner: number | null | undefined, share: number | null | undefined, isAdmin: boolean): LinkFacts {
  return { isOwner: owner != null, hasShare: share != null, isAdmin };
}
