import type { Ddl, MigrationStep } from './ddl.js';

/**
 * Groups (docs/groups.md): named sets of users that own links and receive
 * shares as one. The table is `user_groups` because `groups` is a reserved
 * word in MySQL. A group owner or share is its own row beside the per-user
 * rows, so everything that reads `link_owners` and `link_shares` keeps its
 * meaning and the access checks add one join through `group_members`.
 */
export const groupMigrations: MigrationStep[] = [
  {
    name: '00031_create_groups',
    async up(d: Ddl) {
      await d
        .createTable('user_groups')
        .addColumn('id', d.str(36), (c) => c.primaryKey())
        .addColumn('name', d.str(128), (c) => c.notNull())
        .addColumn('description', d.text(), (c) => c.notNull())
        // 1: membership follows the identity provider's groups claim at every sign-in.
        .addColumn('synced', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .execute();
      await d.db.schema.createIndex('idx_user_groups_name').unique().on('user_groups').column('name').execute();

      await d
        .createTable('group_members')
        .addColumn('group_id', d.str(36), (c) => c.notNull())
        .addColumn('user_id', d.str(36), (c) => c.notNull())
        .addColumn('role', d.str(16), (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('group_members_pkey', ['group_id', 'user_id'])
        .addForeignKeyConstraint('group_members_group_id_fkey', ['group_id'], 'user_groups', ['id'], (f) => f.onDelete('cascade'))
        .addForeignKeyConstraint('group_members_user_id_fkey', ['user_id'], 'users', ['id'], (f) => f.onDelete('cascade'))
        .execute();
      // "Which groups is this user in": every access check that passes through a group.
      await d.db.schema.createIndex('idx_group_members_user_id').on('group_members').columns(['user_id', 'group_id']).execute();

      for (const table of ['link_owner_groups', 'link_share_groups'] as const) {
        await d
          .createTable(table)
          .addColumn('link_id', d.str(36), (c) => c.notNull())
          .addColumn('group_id', d.str(36), (c) => c.notNull())
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addPrimaryKeyConstraint(`${table}_pkey`, ['link_id', 'group_id'])
          .addForeignKeyConstraint(`${table}_link_id_fkey`, ['link_id'], 'links', ['id'], (f) => f.onDelete('cascade'))
          .addForeignKeyConstraint(`${table}_group_id_fkey`, ['group_id'], 'user_groups', ['id'], (f) => f.onDelete('cascade'))
          .execute();
        await d.db.schema.createIndex(`idx_${table}_group_id`).on(table).column('group_id').execute();
      }
    },
    async down(d: Ddl) {
      for (const table of ['link_share_groups', 'link_owner_groups', 'group_members', 'user_groups']) {
        await d.db.schema.dropTable(table).execute();
      }
    },
  },
];
