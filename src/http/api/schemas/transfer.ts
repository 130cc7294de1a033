import { Type } from '@sinclair/typebox';
import { Nullable, StringEnum, Timestamp } from './ref.js';

/** Bulk export and import (docs/api.md#bulk-export-and-import, docs/api.md#importing-from-other-tools): one export line, one import report. */

export const LinkExportRecordSchema = Type.Object(
  {
    slug: Type.String(),
    url: Type.String(),
    title: Type.String(),
    description: Type.String(),
    visibility: Type.String(),
    tags: Type.Array(Type.String(), { description: 'tag names' }),
    owners: Type.Array(Type.String(), { description: 'owner emails, primary first' }),
    expires_at: Nullable(Timestamp()),
    archived_at: Nullable(Timestamp()),
    health_checks_disabled: Type.Boolean(),
    aliases: Type.Array(Type.String(), { description: 'the link’s other names, sorted' }),
    forward_path_and_query: Type.Boolean(),
    default_url: Nullable(Type.String({ description: 'a `$name` template’s destination when visited with no value' })),
    created_at: Timestamp(),
  },
  { $id: 'LinkExportRecord', description: 'One line of the JSON Lines link export.' },
);

const ImportAction = StringEnum(['created', 'updated', 'skipped', 'refused']);

export const ImportReportSchema = Type.Object(
  {
    format: Type.String({ description: 'the format read (named with `from` or detected)' }),
    dry_run: Type.Boolean(),
    rows: Type.Array(
      Type.Object({
        line: Type.Integer({ description: 'line of the file (position in the list, for JSON documents)' }),
        slug: Type.Optional(Type.String({ description: 'the slug here' })),
        written: Type.Optional(Type.String({ description: 'the name as the file wrote it, when it differs' })),
        action: ImportAction,
        reason: Type.Optional(Type.String({ description: 'why the row was refused; `unchanged` for a skipped one' })),
        changes: Type.Optional(Type.Array(Type.String(), { description: 'fields an update changes' })),
        notes: Type.Array(Type.String()),
        source_clicks: Type.Optional(Type.Integer({ description: 'the source tool’s click count (never stored)' })),
      }),
      { description: 'one entry per row, in file order' },
    ),
    summary: Type.Object({
      format: Type.String(),
      dry_run: Type.Boolean(),
      rows: Type.Integer(),
      created: Type.Integer(),
      updated: Type.Integer(),
      skipped: Type.Integer(),
      refused: Type.Integer(),
      source_clicks: Type.Integer({ description: 'clicks the source counted for the links imported' }),
    }),
  },
  { $id: 'ImportReport', description: 'What an import did (or would do, in a dry run) to each row of the file.' },
);
