import { sql } from 'kysely';
import type { Ddl, MigrationStep } from './ddl.js';

/**
 * Aliases and path forwarding (docs/links.md#aliases, docs/links.md#path-and-query-forwarding).
 *
 * A link's slug and its aliases share one namespace, so every name of every
 * link is a row of `link_names` under one unique key: two writers can never
 * both give the same name to two links, whichever of the two kinds each one
 * writes. Slugs keep their own column (and index) on `links`, which the
 * redirect's exact lookup reads; their rows here exist for the shared key.
 * Names are lower case by the slug rules, so the byte-order key is also
 * case-insensitive in effect.
 */
export const linkNameMigrations: MigrationStep[] = [
  {
    name: '00027_create_link_names',
    async up(d: Ddl) {
      await d
        .createTable('link_names')
        .addColumn('name', d.str(128), (c) => c.primaryKey())
        .addColumn('link_id', d.str(36), (c) => c.notNull())
        .addColumn('is_alias', 'integer', (c) => c.notNull().defaultTo(0))
        .addForeignKeyConstraint('link_names_link_id_fkey', ['link_id'], 'links', ['id'], (f) => f.onDelete('cascade'))
        .execute();
      await d.db.schema.createIndex('idx_link_names_link_id').on('link_names').column('link_id').execute();
      // Every slug stored so far takes its place in the namespace.
      await d.db
        .insertInto('link_names')
        .columns(['name', 'link_id', 'is_alias'])
        .expression(d.db.selectFrom('links').select(['slug', 'id', (eb) => eb.lit(0).as('is_alias')]))
        .execute();
    },
    async down(d: Ddl) {
      await d.db.schema.dropTable('link_names').execute();
    },
  },
  {
    name: '00028_add_links_forward_path_and_query',
    async up(d: Ddl) {
      await d.db.schema
        .alterTable('links')
        .addColumn('forward_path_and_query', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
    },
    async down(d: Ddl) {
      await d.db.schema.alterTable('links').dropColumn('forward_path_and_query').execute();
    },
  },
  {
    // golink's matching ignores hyphens (docs/links.md#forgiveness-and-did-you-mean): the slug
    // without them, indexed, so a name that misses every other lookup costs one index probe,
    // never a scan of every link. A slug never changes once written, so the store sets this
    // once, as the backfill here does.
    name: '00029_add_links_slug_key',
    async up(d: Ddl) {
      await d.db.schema.alterTable('links').addColumn('slug_key', d.str(128)).execute();
      await d.db
        .updateTable('links')
        .set({ slug_key: sql`replace(slug, '-', '')` })
        .execute();
      await d.db.schema.createIndex('idx_links_slug_key').on('links').column('slug_key').execute();
    },
    async down(d: Ddl) {
      await d.dropIndex('idx_links_slug_key', 'links');
      await d.db.schema.alterTable('links').dropColumn('slug_key').execute();
    },
  },
  {
    // A templated link's destination when it is visited with no value at all
    // (docs/links.md#default-destination); null for every other link. Unbounded
    // like `url`, which it is validated as.
    name: '00030_add_links_default_url',
    async up(d: Ddl) {
      await d.db.schema.alterTable('links').addColumn('default_url', d.text()).execute();
    },
    async down(d: Ddl) {
      await d.db.schema.alterTable('links').dropColumn('default_url').execute();
    },
  },
];
