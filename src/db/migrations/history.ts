import type { Ddl, MigrationStep } from './ddl.js';

/**
 * Link history (docs/history.md#how-it-is-stored): one row per link event,
 * written in the transaction of the change it describes. `seq` is the order
 * events happened in (a link's changes are serialised by its row lock, so
 * it is also the order its events must be undone in); `id` is the public
 * name of an event. There is deliberately no foreign key to `links` or
 * `users`: events outlive the link and the people they name, and keep the
 * slug and the actor's email so admins can still find them. `data` is the
 * event's own fields as JSON (changed fields with before and after, the
 * member, the restored event), so a field added to links later needs no
 * migration here.
 */
export const historyMigrations: MigrationStep[] = [
  {
    name: '00021_create_link_events',
    async up(d: Ddl) {
      await d
        .serialKey(d.createTable('link_events'), 'seq')
        .addColumn('id', d.str(36), (c) => c.notNull())
        .addColumn('link_id', d.str(36), (c) => c.notNull())
        .addColumn('slug', d.str(128), (c) => c.notNull())
        .addColumn('kind', d.str(32), (c) => c.notNull())
        .addColumn('at', 'bigint', (c) => c.notNull())
        .addColumn('via', d.str(32))
        .addColumn('actor_id', d.str(36))
        .addColumn('actor_email', d.str(255))
        .addColumn('actor_name', d.str(255))
        .addColumn('data', d.text(), (c) => c.notNull())
        .addUniqueConstraint('link_events_id_key', ['id'])
        .execute();
      await d.db.schema.createIndex('idx_link_events_link_seq').on('link_events').columns(['link_id', 'seq']).execute();
      await d.db.schema.createIndex('idx_link_events_slug_seq').on('link_events').columns(['slug', 'seq']).execute();
      await d.db.schema.createIndex('idx_link_events_kind_seq').on('link_events').columns(['kind', 'seq']).execute();
    },
    async down(d: Ddl) {
      await d.db.schema.dropTable('link_events').execute();
    },
  },
];
