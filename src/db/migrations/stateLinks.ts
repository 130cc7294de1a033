import type { Ddl, MigrationStep } from './ddl.js';

/**
 * App-state short links (docs/state-links.md). Ids are case-sensitive base62, so
 * they rely on the byte-order collation Ddl gives every text column.
 * `payload_bytes` keeps the storage cap a sum over one narrow column;
 * `expires_at` is NULL once a link has been opened and is indexed for the sweep.
 */
export const stateLinkMigrations: MigrationStep[] = [
  {
    name: '00016_create_state_links',
    async up(d: Ddl) {
      await d
        .createTable('state_links')
        .addColumn('id', d.str(16), (c) => c.primaryKey())
        .addColumn('payload', d.text(), (c) => c.notNull())
        .addColumn('payload_sha256', d.str(64), (c) => c.notNull())
        .addColumn('payload_bytes', 'integer', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('expires_at', 'bigint')
        .addUniqueConstraint('state_links_payload_sha256_key', ['payload_sha256'])
        .execute();
      await d.db.schema.createIndex('idx_state_links_expires_at').on('state_links').column('expires_at').execute();
    },
    async down(d: Ddl) {
      await d.db.schema.dropTable('state_links').execute();
    },
  },
];
