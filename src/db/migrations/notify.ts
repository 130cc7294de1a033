import type { Ddl, MigrationStep } from './ddl.js';

/**
 * Owner notifications, webhooks and the one outbox both deliver through
 * (docs/notifications.md).
 *
 * `notifications` keeps the link's slug beside its id and has no foreign key
 * to `links`: a notification about a deleted link stays readable. `mail_state`
 * says whether it is still to be mailed (`pending`), was (`sent`), gave up
 * (`failed`) or never will be (`none`).
 *
 * `outbox` rows are durable deliveries, written in the transaction of the
 * change they announce: a mail (`user_id` set) or a webhook call
 * (`webhook_id` set). Each names its owner by a real foreign key, so deleting
 * a user or an endpoint drops what was still to be sent to it.
 * `outbox_attempts` is the log of every try.
 *
 * `expiry_notices` remembers which expiry values were already announced, so
 * each is announced once and a renewed link with a new expiry can be again.
 */
export const notifyMigrations: MigrationStep[] = [
  {
    name: '00023_create_notifications',
    async up(d: Ddl) {
      await d
        .createTable('notifications')
        .addColumn('id', d.str(36), (c) => c.primaryKey())
        .addColumn('user_id', d.str(36), (c) => c.notNull())
        .addColumn('kind', d.str(32), (c) => c.notNull())
        .addColumn('link_id', d.str(36), (c) => c.notNull())
        .addColumn('link_slug', d.str(128), (c) => c.notNull())
        .addColumn('detail', d.text(), (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('read_at', 'bigint')
        .addColumn('mail_state', d.str(16), (c) => c.notNull())
        .addColumn('mailed_at', 'bigint')
        .addForeignKeyConstraint('notifications_user_id_fkey', ['user_id'], 'users', ['id'], (f) => f.onDelete('cascade'))
        .execute();
      // The page and the API list newest first; the bell counts unread rows of one user.
      await d.db.schema
        .createIndex('idx_notifications_user_created')
        .on('notifications')
        .columns(['user_id', 'created_at', 'id'])
        .execute();
      await d.db.schema.createIndex('idx_notifications_user_read').on('notifications').columns(['user_id', 'read_at']).execute();
      // Mail folding reads one (recipient, link, kind) at a time.
      await d.db.schema
        .createIndex('idx_notifications_mail_key')
        .on('notifications')
        .columns(['user_id', 'link_id', 'kind', 'mail_state'])
        .execute();
      await d
        .createTable('notification_preferences')
        .addColumn('user_id', d.str(36), (c) => c.notNull())
        .addColumn('kind', d.str(32), (c) => c.notNull())
        .addColumn('email', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('notification_preferences_pkey', ['user_id', 'kind'])
        .addForeignKeyConstraint('notification_preferences_user_id_fkey', ['user_id'], 'users', ['id'], (f) => f.onDelete('cascade'))
        .execute();
    },
    async down(d: Ddl) {
      await d.db.schema.dropTable('notification_preferences').execute();
      await d.db.schema.dropTable('notifications').execute();
    },
  },
  {
    name: '00024_create_webhooks',
    async up(d: Ddl) {
      await d
        .createTable('webhooks')
        .addColumn('id', d.str(36), (c) => c.primaryKey())
        .addColumn('url', d.text(), (c) => c.notNull())
        .addColumn('events', d.text(), (c) => c.notNull())
        .addColumn('secret', d.str(128), (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
    },
    async down(d: Ddl) {
      await d.db.schema.dropTable('webhooks').execute();
    },
  },
  {
    name: '00025_create_outbox',
    async up(d: Ddl) {
      await d
        .createTable('outbox')
        .addColumn('id', d.str(36), (c) => c.primaryKey())
        .addColumn('channel', d.str(16), (c) => c.notNull())
        .addColumn('user_id', d.str(36))
        .addColumn('webhook_id', d.str(36))
        .addColumn('message_id', d.str(64), (c) => c.notNull())
        .addColumn('event_type', d.str(64), (c) => c.notNull())
        .addColumn('payload', d.text(), (c) => c.notNull())
        .addColumn('status', d.str(16), (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull())
        .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
        .addColumn('claimed_until', 'bigint')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('finished_at', 'bigint')
        .addColumn('last_status', 'integer')
        .addColumn('last_error', d.text())
        .addForeignKeyConstraint('outbox_user_id_fkey', ['user_id'], 'users', ['id'], (f) => f.onDelete('cascade'))
        .addForeignKeyConstraint('outbox_webhook_id_fkey', ['webhook_id'], 'webhooks', ['id'], (f) => f.onDelete('cascade'))
        .execute();
      await d.db.schema.createIndex('idx_outbox_due').on('outbox').columns(['status', 'next_attempt_at']).execute();
      await d.db.schema.createIndex('idx_outbox_webhook').on('outbox').columns(['webhook_id', 'created_at', 'id']).execute();
      await d.db.schema.createIndex('idx_outbox_user').on('outbox').column('user_id').execute();
      await d
        .createTable('outbox_attempts')
        .addColumn('id', d.str(36), (c) => c.primaryKey())
        .addColumn('outbox_id', d.str(36), (c) => c.notNull())
        .addColumn('attempt', 'integer', (c) => c.notNull())
        .addColumn('at', 'bigint', (c) => c.notNull())
        .addColumn('duration_ms', 'integer', (c) => c.notNull())
        .addColumn('status_code', 'integer')
        .addColumn('error', d.text())
        .addForeignKeyConstraint('outbox_attempts_outbox_id_fkey', ['outbox_id'], 'outbox', ['id'], (f) => f.onDelete('cascade'))
        .execute();
      await d.db.schema.createIndex('idx_outbox_attempts_outbox').on('outbox_attempts').columns(['outbox_id', 'attempt']).execute();
    },
    async down(d: Ddl) {
      await d.db.schema.dropTable('outbox_attempts').execute();
      await d.db.schema.dropTable('outbox').execute();
    },
  },
  {
    name: '00026_create_expiry_notices',
    async up(d: Ddl) {
      await d
        .createTable('expiry_notices')
        .addColumn('link_id', d.str(36), (c) => c.notNull())
        .addColumn('stage', d.str(16), (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('expiry_notices_pkey', ['link_id', 'stage', 'expires_at'])
        .addForeignKeyConstraint('expiry_notices_link_id_fkey', ['link_id'], 'links', ['id'], (f) => f.onDelete('cascade'))
        .execute();
      // The expiry watch reads links by expiry range every run; few links have one.
      await d.db.schema.createIndex('idx_links_expires_at').on('links').column('expires_at').execute();
    },
    async down(d: Ddl) {
      await d.dropIndex('idx_links_expires_at', 'links');
      await d.db.schema.dropTable('expiry_notices').execute();
    },
  },
];
