import { Type, type Static } from '@sinclair/typebox';
import { HISTORY_KINDS, type AuditEventResource, type HistoryEventResource, type PersonResource } from '../../../links/index.js';
import { Nullable, ref, StringEnum, Timestamp } from './ref.js';

/**
 * The named schemas of link history (docs/api.md#link-history). `changes`
 * is open over field names, so a field added to links later is described by
 * the same schema; its values are whatever the link body writes for the field.
 */

export const PersonSchema = Type.Object(
  { id: Type.String({ description: 'user id' }), email: Type.String(), display_name: Type.String() },
  { $id: 'PersonResponse', additionalProperties: false, description: 'A user as they were when the event was recorded' },
);

const change = Type.Object(
  {
    from: Type.Unknown({ description: 'the value before; null when the link did not exist yet' }),
    to: Type.Unknown({ description: 'the value after; null once the link is deleted' }),
  },
  { additionalProperties: false },
);

const eventFields = {
  id: Type.String({ description: 'event id; restore with POST /links/{id}/history/{event_id}/restore' }),
  at: Timestamp('when the change was made'),
  kind: StringEnum(HISTORY_KINDS),
  actor: Nullable(
    ref(PersonSchema, {
      description: 'who made it; null for the CLI without `--as`, and for member events unless the caller holds CanManageShares',
    }),
  ),
  via: Nullable(Type.String({ description: '`web`, `api`, `mcp` or `cli`; null when not recorded' })),
  changes: Type.Record(Type.String(), change, {
    description:
      'changed fields by their link-body names (`url`, `tags`, `expires_at`, …; `primary_owner` for a transfer), each with before and after; empty for member events, and for a transfer unless the caller holds CanManageShares',
  }),
  member: Nullable(
    ref(PersonSchema, { description: 'the owner or share recipient of a member event; null unless the caller holds CanManageShares' }),
  ),
  group: Nullable(
    Type.Object(
      { id: Type.String(), name: Type.String() },
      {
        additionalProperties: false,
        description: 'the group of a group owner or share event; null unless the caller holds CanManageShares',
      },
    ),
  ),
  source: Nullable(Type.String({ description: 'the import format of an imported change' })),
  restores: Nullable(
    Type.Object(
      { event_id: Type.String(), at: Timestamp() },
      { additionalProperties: false, description: 'the event a `restored` event went back to' },
    ),
  ),
};

export const HistoryEventSchema = Type.Object(eventFields, { $id: 'HistoryEventResponse', additionalProperties: false });

export const HistoryPageSchema = Type.Object(
  {
    events: Type.Array(ref(HistoryEventSchema), { description: 'newest first' }),
    next_cursor: Nullable(Type.String({ description: 'pass as `cursor` for the next page; null on the last page' })),
  },
  { $id: 'HistoryPageResponse', additionalProperties: false },
);

export const AuditEventSchema = Type.Object(
  {
    ...eventFields,
    link_id: Type.String({ description: 'the link, which may have been deleted since' }),
    slug: Type.String({ description: 'the link’s slug when the event was recorded' }),
  },
  { $id: 'AuditEventResponse', additionalProperties: false },
);

export const AuditPageSchema = Type.Object(
  {
    events: Type.Array(ref(AuditEventSchema), { description: 'newest first' }),
    next_cursor: Nullable(Type.String({ description: 'pass as `cursor` for the next page; null on the last page' })),
  },
  { $id: 'AuditPageResponse', additionalProperties: false },
);

/** Holds only when the two types are the same: a response schema and the resource it serialises. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const schemasMatchResources: [
  Same<Static<typeof PersonSchema>, PersonResource>,
  Same<Static<typeof HistoryEventSchema>, HistoryEventResource>,
  Same<Static<typeof AuditEventSchema>, AuditEventResource>,
] = [true, true, true];
void schemasMatchResources;
