/**
 * One compiled single-row statement run by the database's cheapest means:
 * the row's values in select order, at once where the driver can answer
 * synchronously, or undefined for no row.
 */
export type HotLookup = (params: readonly unknown[]) => unknown[] | undefined | Promise<unknown[] | undefined>;
