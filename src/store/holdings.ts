import { sql, type Expression, type RawBuilder, type SqlBool } from 'kysely';

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
