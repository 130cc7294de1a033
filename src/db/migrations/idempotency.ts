import type { Ddl, MigrationStep } from './ddl.js';

/**
 * Idempotency keys (docs/api.md#safe-retries): the first answer to a create sent with an
 * `Idempotency-Key`, kept per user for 24 hours so a retry gets it again instead of a second
 * link, token or webhook. The key is the primary key with the user, so two replicas racing on
 * the same key settle it in the database.
 */
export const idempotencyMigrations: MigrationStep[] = [
  {
    name: '00033_create_idempotency_keys',
    async up(d: Ddl) {
      await d
        .createTable('idempotency_keys')
        .addColumn('user_id', d.str(36), (c) => c.notNull())
        .addColumn('idem_key', d.str(255), (c) => c.notNull())
        // The operation and its body, digested: the same key with another request is refused.
        .addColumn('request_hash', d.str(64), (c) => c.notNull())
        // 0 while the first request is still being answered.
        .addColumn('status', 'integer', (c) => c.notNull())
        .addColumn('content_type', d.str(128), (c) => c.notNull())
        .addColumn('location', d.text())
        .addColumn('body', d.text(), (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('idempotency_keys_pkey', ['user_id', 'idem_key'])
        .addForeignKeyConstraint('idempotency_keys_user_id_fkey', ['user_id'], 'users', ['id'], (f) => f.onDelete('cascade'))
        .execute();
      await d.db.schema.createIndex('idx_idempotency_keys_created_at').on('idempotency_keys').column('created_at').execute();
    },
    async down(d: Ddl) {
      await d.db.schema.dropTable('idempotency_keys').execute();
    },
  },
];
