import type { Ddl, MigrationStep } from './ddl.js';

/**
 * The core schema of docs/server.md#databases, built with Kysely's portable schema builder.
 * Foreign keys are table-level constraints because MySQL silently ignores
 * inline REFERENCES. Tables are created in their final shape; the lifecycle
 * columns arrive as plain ADD COLUMN steps that every database runs in place.
 */

export const coreMigrations: MigrationStep[] = [
  {
    name: '00001_create_users',
    async up(d: Ddl) {
      await d
        .createTable('users')
        .addColumn('id', d.str(36), (c) => c.primaryKey())
        .addColumn('provider', d.str(255), (c) => c.notNull())
        .addColumn('subject', d.str(255), (c) => c.notNull())
        .addColumn('email', d.str(255), (c) => c.notNull())
        .addColumn('display_name', d.str(255), (c) => c.notNull().defaultTo(''))
        .addColumn('display_name_slug', d.str(255), (c) => c.notNull().defaultTo(''))
        .addColumn('role', d.str(16), (c) => c.notNull().defaultTo('user'))
        .addColumn('role_source', d.str(16), (c) => c.notNull().defaultTo('manual'))
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .addUniqueConstraint('users_provider_subject_key', ['provider', 'subject'])
        .execute();
      await d.db.schema.createIndex('idx_users_display_name_slug').unique().on('users').column('display_name_slug').execute();
      await d.db.schema.createIndex('idx_users_email').on('users').column('email').execute();
    },
    async down(d: Ddl) {
      await d.db.schema.dropTable('users').execute();
    },
  },
  {
    name: '00002_create_sessions',
    async up(d: Ddl) {
      await d
        .createTable('sessions')
        .addColumn('token', d.str(43), (c) => c.primaryKey())
        .addColumn('data', d.blob(), (c) => c.notNull())
        .addColumn('expiry', 'bigint', (c) => c.notNull())
        .execute();
      await d.db.schema.createIndex('sessions_expiry_idx').on('sessions').column('expiry').execute();
    },
    async down(d: Ddl) {
      await d.db.schema.dropTable('sessions').execute();
    },
  },
  {
    name: '00003_create_links',
    async up(d: Ddl) {
      await d
        .createTable('links')
        .addColumn('id', d.str(36), (c) => c.primaryKey())
        .addColumn('slug', d.str(128), (c) => c.notNull())
        .addColumn('url', d.text(), (c) => c.notNull())
        .addColumn('title', d.text())
        .addColumn('description', d.text())
        .addColumn('visibility', d.str(16), (c) => c.notNull().defaultTo('public'))
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .execute();
      await d.db.schema.createIndex('idx_links_slug').unique().on('links').column('slug').execute();
    },
    async down(d: Ddl) {
      await d.db.schema.dropTable('links').execute();
    },
  },
  {
    name: '00004_create_tags',
    async up(d: Ddl) {
      await d
        .createTable('tags')
        .addColumn('id', d.str(36), (c) => c.primaryKey())
        .addColumn('name', d.str(255), (c) => c.notNull())
        .addColumn('slug', d.str(255), (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
      await d.db.schema.createIndex('idx_tags_slug').unique().on('tags').column('slug').execute();
    },
    async down(d: Ddl) {
      await d.db.schema.dropTable('tags').execute();
    },
  },
  {
    name: '00005_create_link_tags',
    async up(d: Ddl) {
      await d
        .createTable('link_tags')
        .addColumn('link_id', d.str(36), (c) => c.notNull())
        .addColumn('tag_id', d.str(36), (c) => c.notNull())
        .addPrimaryKeyConstraint('link_tags_pkey', ['link_id', 'tag_id'])
        .addForeignKeyConstraint('link_tags_link_id_fkey', ['link_id'], 'links', ['id'], (f) => f.onDelete('cascade'))
        .addForeignKeyConstraint('link_tags_tag_id_fkey', ['tag_id'], 'tags', ['id'], (f) => f.onDelete('cascade'))
        .execute();
      await d.db.schema.createIndex('idx_link_tags_tag_id').on('link_tags').column('tag_id').execute();
    },
    async down(d: Ddl) {
      await d.db.schema.dropTable('link_tags').execute();
    },
  },
  {
    name: '00006_create_link_owners',
    async up(d: Ddl) {
      await d
        .createTable('link_owners')
        .addColumn('link_id', d.str(36), (c) => c.notNull())
        .addColumn('user_id', d.str(36), (c) => c.notNull())
        .addColumn('is_primary', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('link_owners_pkey', ['link_id', 'user_id'])
        .addForeignKeyConstraint('link_owners_link_id_fkey', ['link_id'], 'links', ['id'], (f) => f.onDelete('cascade'))
        .addForeignKeyConstraint('link_owners_user_id_fkey', ['user_id'], 'users', ['id'], (f) => f.onDelete('cascade'))
        .execute();
      await d.db.schema.createIndex('idx_link_owners_user_id').on('link_owners').column('user_id').execute();
    },
    async down(d: Ddl) {
      await d.db.schema.dropTable('link_owners').execute();
    },
  },
  {
    name: '00007_create_api_tokens',
    async up(d: Ddl) {
      await d
        .createTable('api_tokens')
        .addColumn('id', d.str(36), (c) => c.primaryKey())
        .addColumn('user_id', d.str(36), (c) => c.notNull())
        .addColumn('name', d.str(255), (c) => c.notNull())
        .addColumn('token_hash', d.str(64), (c) => c.notNull())
        .addColumn('last_used_at', 'bigint')
        .addColumn('expires_at', 'bigint')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('revoked_at', 'bigint')
        .addUniqueConstraint('api_tokens_token_hash_key', ['token_hash'])
        .addForeignKeyConstraint('api_tokens_user_id_fkey', ['user_id'], 'users', ['id'], (f) => f.onDelete('cascade'))
        .execute();
      await d.db.schema.createIndex('idx_api_tokens_user_id').on('api_tokens').column('user_id').execute();
      await d.db.schema.createIndex('idx_api_tokens_token_hash').on('api_tokens').column('token_hash').execute();
    },
    async down(d: Ddl) {
      await d.db.schema.dropTable('api_tokens').execute();
    },
  },
  {
    name: '00008_create_keywords',
    async up(d: Ddl) {
      await d
        .createTable('keywords')
        .addColumn('id', d.str(36), (c) => c.primaryKey())
        .addColumn('keyword', d.str(255), (c) => c.notNull())
        .addColumn('url_template', d.text(), (c) => c.notNull())
        .addColumn('description', d.text(), (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addUniqueConstraint('keywords_keyword_key', ['keyword'])
        .execute();
    },
    async down(d: Ddl) {
      await d.db.schema.dropTable('keywords').execute();
    },
  },
  {
    name: '00009_create_link_shares',
    async up(d: Ddl) {
      await d
        .createTable('link_shares')
        .addColumn('link_id', d.str(36), (c) => c.notNull())
        .addColumn('user_id', d.str(36), (c) => c.notNull())
        .addColumn('shared_by', d.str(36), (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('link_shares_pkey', ['link_id', 'user_id'])
        .addForeignKeyConstraint('link_shares_link_id_fkey', ['link_id'], 'links', ['id'], (f) => f.onDelete('cascade'))
        .addForeignKeyConstraint('link_shares_user_id_fkey', ['user_id'], 'users', ['id'], (f) => f.onDelete('cascade'))
        .addForeignKeyConstraint('link_shares_shared_by_fkey', ['shared_by'], 'users', ['id'], (f) => f.onDelete('cascade'))
        .execute();
      await d.db.schema.createIndex('idx_link_shares_link_user').on('link_shares').columns(['link_id', 'user_id']).execute();
      await d.db.schema.createIndex('idx_link_shares_user_id').on('link_shares').column('user_id').execute();
      await d.db.schema.createIndex('idx_link_shares_shared_by').on('link_shares').column('shared_by').execute();
    },
    async down(d: Ddl) {
      await d.db.schema.dropTable('link_shares').execute();
    },
  },
  {
    name: '00010_create_link_clicks',
    async up(d: Ddl) {
      await d
        .createTable('link_clicks')
        .addColumn('id', d.str(36), (c) => c.primaryKey())
        .addColumn('link_id', d.str(36), (c) => c.notNull())
        .addColumn('user_id', d.str(36))
        .addColumn('ip_hash', d.str(64), (c) => c.notNull())
        .addColumn('user_agent', d.text())
        .addColumn('referrer', d.text())
        .addColumn('clicked_at', 'bigint', (c) => c.notNull())
        .addForeignKeyConstraint('link_clicks_link_id_fkey', ['link_id'], 'links', ['id'], (f) => f.onDelete('cascade'))
        .addForeignKeyConstraint('link_clicks_user_id_fkey', ['user_id'], 'users', ['id'], (f) => f.onDelete('set null'))
        .execute();
      await d.db.schema
        .createIndex('idx_link_clicks_link_id_clicked_at')
        .on('link_clicks')
        .columns(['link_id', 'clicked_at', 'id'])
        .execute();
      // No index on user_id: every redirect pays for each index, while the only
      // reader of that column by value is the rare user deletion (SET NULL).
      await d.db.schema.createIndex('idx_link_clicks_clicked_at').on('link_clicks').columns(['clicked_at', 'id']).execute();
    },
    async down(d: Ddl) {
      await d.db.schema.dropTable('link_clicks').execute();
    },
  },
  {
    name: '00011_add_links_lifecycle',
    async up(d: Ddl) {
      await d.db.schema.alterTable('links').addColumn('expires_at', 'bigint').execute();
      await d.db.schema.alterTable('links').addColumn('archived_at', 'bigint').execute();
    },
    async down(d: Ddl) {
      await d.db.schema.alterTable('links').dropColumn('archived_at').execute();
      await d.db.schema.alterTable('links').dropColumn('expires_at').execute();
    },
  },
  {
    name: '00012_add_link_health',
    async up(d: Ddl) {
      await d.db.schema
        .alterTable('links')
        .addColumn('health_checks_disabled', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await d
        .createTable('link_health')
        .addColumn('link_id', d.str(36), (c) => c.primaryKey())
        .addColumn('last_checked_at', 'bigint')
        .addColumn('last_status', 'integer')
        .addColumn('last_error', d.text())
        .addColumn('consecutive_failures', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('next_check_at', 'bigint')
        .addColumn('skipped', 'integer', (c) => c.notNull().defaultTo(0))
        .addForeignKeyConstraint('link_health_link_id_fkey', ['link_id'], 'links', ['id'], (f) => f.onDelete('cascade'))
        .execute();
      await d.db.schema.createIndex('idx_link_health_next_check_at').on('link_health').column('next_check_at').execute();
    },
    async down(d: Ddl) {
      await d.db.schema.dropTable('link_health').execute();
      await d.db.schema.alterTable('links').dropColumn('health_checks_disabled').execute();
    },
  },
  {
    name: '00013_create_settings',
    async up(d: Ddl) {
      await d
        .createTable('settings')
        .addColumn('name', d.str(255), (c) => c.primaryKey())
        .addColumn('value', d.text(), (c) => c.notNull())
        .execute();
    },
    async down(d: Ddl) {
      await d.db.schema.dropTable('settings').execute();
    },
  },
  {
    name: '00014_create_login_tokens',
    async up(d: Ddl) {
      await d
        .createTable('login_tokens')
        .addColumn('id', d.str(36), (c) => c.primaryKey())
        .addColumn('user_id', d.str(36), (c) => c.notNull())
        .addColumn('token_hash', d.str(64), (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('used_at', 'bigint')
        .addUniqueConstraint('login_tokens_token_hash_key', ['token_hash'])
        .addForeignKeyConstraint('login_tokens_user_id_fkey', ['user_id'], 'users', ['id'], (f) => f.onDelete('cascade'))
        .execute();
    },
    async down(d: Ddl) {
      await d.db.schema.dropTable('login_tokens').execute();
    },
  },
  {
    name: '00015_create_job_leases',
    async up(d: Ddl) {
      await d
        .createTable('job_leases')
        .addColumn('name', d.str(64), (c) => c.primaryKey())
        .addColumn('holder', d.str(64), (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .addColumn('last_run_at', 'bigint')
        .execute();
    },
    async down(d: Ddl) {
      await d.db.schema.dropTable('job_leases').execute();
    },
  },
];
